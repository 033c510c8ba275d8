import ArgumentParser
import Foundation
import TideCore
import TideLua
import TideReports

/// `tide plugins`: list the plugins Tide can find, and check one without a model.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List plugins, check one, start one, or run their tests, in the sandbox without loading a model.",
        subcommands: [List.self, Check.self, PluginNewCommand.self, PluginTestCommand.self],
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
            abstract: "Load a plugin in the sandbox and report problems (syntax, missing return, unknown hooks, bad options).")

        @Argument(help: "A plugin file, or a name with options: 'NAME key=value …'.")
        var plugin: String

        func run() throws {
            let loaded = try PluginMaker().plugin(PluginSpec(parsing: plugin), log: { _ in })
            let hooks = loaded.points.map(\.rawValue).sorted()
            print("ok: \(loaded.name) \(loaded.version) (\(loaded.path))")
            print("hooks: " + (hooks.isEmpty ? (loaded.tools.isEmpty ? "none (the plugin does nothing)" : "none") : hooks.joined(separator: ", ")))
            if !loaded.tools.isEmpty {
                print("tools: " + loaded.tools.map { "\($0.name) (\($0.description))" }.joined(separator: ", "))
            }
            print("options: " + PluginListing.optionsText(loaded.options))
        }
    }
}
