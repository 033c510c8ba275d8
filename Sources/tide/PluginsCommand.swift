import ArgumentParser
import Foundation
import TideCore
import TideLua
import TideMCP
import TidePluginHarness
import TideReports

/// `tide plugins`: list the plugins Tide can find, and check one without a model.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List plugins, check one, start one, or run their tests, in the sandbox without loading a model.",
        subcommands: [List.self, Check.self, PluginNewCommand.self, PluginTestCommand.self, Types.self, Luacheckrc.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the plugins Tide finds: in ./Plugins, in ~/.config/tide/plugins, and shipped with tide.",
            discussion: "A plugin in a folder takes precedence over one of the same name further down the list.")

        @Flag(help: "One JSON object per plugin: name, version, description, path, origin, hooks, options with their defaults.")
        var json = false

        func run() throws {
            let all = PluginLocator.standard.available()
            var seen: Set<String> = []
            for found in all where seen.insert(found.name).inserted {
                let hidden = all.filter { $0.name == found.name && $0 != found }.map(\.place)
                let listing = PluginListing(found, overriding: hidden)
                print(json ? JSONOutput.line(listing) : listing.text)
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load a plugin in the sandbox and report problems (syntax, missing return, unknown hooks, bad options), "
                + "then luacheck's findings with the sandbox's configuration when it is installed.")

        @Argument(help: "A plugin file, or a name with options: 'NAME key=value …'.")
        var plugin: String

        func run() throws {
            if plugin.hasSuffix("_test.lua"), FileManager.default.fileExists(atPath: plugin) {
                print("\(plugin) is a plugin's test file: tide plugins test \(plugin) runs it")
                if try !Self.lint(plugin) { throw ExitCode(1) }
                return
            }
            let loaded = try PluginMaker().plugin(PluginSpec(parsing: plugin), log: { _ in })
            let hooks = loaded.points.map(\.rawValue).sorted()
            print("ok: \(loaded.name) \(loaded.version) (\(loaded.path))")
            print("hooks: " + (hooks.isEmpty ? (loaded.tools.isEmpty ? "none (the plugin does nothing)" : "none") : hooks.joined(separator: ", ")))
            if !loaded.tools.isEmpty {
                print("tools: " + loaded.tools.map { "\($0.name) (\($0.description))" }.joined(separator: ", "))
            }
            print("options: " + PluginListing.optionsText(loaded.options))
            guard FileManager.default.fileExists(atPath: loaded.path) else { return }
            if try !Self.lint(loaded.path) { throw ExitCode(1) }
        }

        /// Runs luacheck on `path` with the sandbox's configuration, printing what it finds, or
        /// says how to install it; false when it warned.
        static func lint(_ path: String) throws -> Bool {
            let configuration = FileManager.default.temporaryDirectory.appendingPathComponent("tide-luacheckrc-\(getpid()).lua")
            try Data(EditorFiles.luacheckConfig.utf8).write(to: configuration)
            defer { try? FileManager.default.removeItem(at: configuration) }
            // Started as Tide starts every program: no signal blocked, in a session of its own.
            let output = Pipe()
            let process: ChildProcess
            do {
                process = try ChildProcess(["luacheck", "--no-color", "--codes", "--config", configuration.path, path],
                                           environment: ProcessInfo.processInfo.environment,
                                           standardInput: FileHandle.nullDevice.fileDescriptor,
                                           standardOutput: output.fileHandleForWriting.fileDescriptor,
                                           standardError: output.fileHandleForWriting.fileDescriptor)
            } catch {
                throw ValidationError("luacheck could not be started: \(error)")
            }
            try output.fileHandleForWriting.close()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let ending = process.waitUntilExit()
            // env's status when it finds no such program.
            guard ending != .exited(127) else {
                print("lint: luacheck is not installed (apt install lua-check, or luarocks install luacheck); "
                      + "tide plugins luacheckrc prints the configuration it would use")
                return true
            }
            let found = text.split(separator: "\n").filter { $0.hasPrefix("    ") }.map { $0.trimmingCharacters(in: .whitespaces) }
            print("lint: " + (found.isEmpty ? "luacheck finds nothing" : "luacheck finds \(found.count) problem\(found.count == 1 ? "" : "s")"))
            for line in found { print("  " + line) }
            return ending == .exited(0)
        }
    }

    struct Types: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the LuaLS (lua-language-server, EmmyLua) definitions of the plugin API: tide plugins types > tide.d.lua.")

        func run() throws {
            print(EditorFiles.luaLSDefinitions, terminator: "")
        }
    }

    struct Luacheckrc: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a luacheck configuration that knows the sandbox: tide plugins luacheckrc > .luacheckrc.")

        func run() throws {
            print(EditorFiles.luacheckConfig, terminator: "")
        }
    }
}
