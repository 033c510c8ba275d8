import ArgumentParser
import Foundation
import TideLua

/// `tide plugins`: list the plugins Tide can find, and check one without a model.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List plugins, or check one in the sandbox without loading a model.",
        subcommands: [List.self, Check.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the plugins in ./Plugins and ~/.config/tide/plugins.")

        func run() throws {
            let locator = PluginLocator.standard
            let files = locator.pluginFiles()
            for file in files {
                do {
                    let plugin = try LuaPlugin(spec: PluginSpec(parsing: file.path))
                    let hooks = plugin.points.map(\.rawValue).sorted().joined(separator: ", ")
                    print("\(plugin.name) \(plugin.version)  \(plugin.summary)")
                    print("    hooks: \(hooks.isEmpty ? "none" : hooks) · \(file.path)")
                } catch {
                    print("\(file.deletingPathExtension().lastPathComponent)  (does not load: \(error))")
                    print("    \(file.path)")
                }
            }
            if files.isEmpty {
                print("no plugins in " + locator.directories.map(\.path).joined(separator: " or "))
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load a plugin in the sandbox and report problems (syntax, missing return, unknown hooks, bad options).")

        @Argument(help: "A plugin file, or a name with options: 'NAME key=value …'.")
        var plugin: String

        func run() throws {
            let loaded = try LuaPlugin(spec: PluginSpec(parsing: plugin))
            let hooks = loaded.points.map(\.rawValue).sorted()
            print("ok: \(loaded.name) \(loaded.version) (\(loaded.path))")
            print("hooks: " + (hooks.isEmpty ? "none (the plugin does nothing)" : hooks.joined(separator: ", ")))
            let options = loaded.options.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.show($0.value))" }
            print("options: " + (options.isEmpty ? "none" : options.joined(separator: " ")))
        }

        private static func show(_ value: LuaValue) -> String {
            switch value {
            case .string(let text): text.contains(" ") ? "\"\(text)\"" : text
            case .integer(let number): "\(number)"
            case .number(let number): "\(number)"
            case .boolean(let flag): "\(flag)"
            default: value.typeName
            }
        }
    }
}
