import ArgumentParser
import Foundation
import TideCore
import TideFiles
import TideLua
import TidePluginHarness

/// `tide plugins new NAME [--hook HOOK ...] [--dir DIR]`: writes a plugin and its test file to
/// start from (docs/plugins.md, "Writing a plugin").
struct PluginNewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Write a new plugin, NAME.lua, and its test file, NAME_test.lua, that passes.",
        discussion: "Hooks: " + HookPoint.allCases.map(\.rawValue).joined(separator: ", ")
            + " (or without on_/should_: prompt, stop, …); without --hook, a stop rule (should_stop). "
            + "Then: tide plugins test DIR/NAME_test.lua, and tide chat --plugin DIR/NAME.lua.")

    @Argument(help: "The plugin's name: letters, digits, - and _, such as stop-on-code.")
    var name: String

    @Option(name: .customLong("hook"), help: ArgumentHelp("A hook to start with (repeatable).", valueName: "hook"))
    var hooks: [String] = []

    @Option(help: ArgumentHelp("The folder to write to (default ./Plugins, where Tide looks first).", valueName: "dir"))
    var dir = "Plugins"

    func validate() throws {
        if let problem = PluginScaffold.problem(withName: name) { throw ValidationError("'\(name)': \(problem)") }
        for hook in hooks where PluginScaffold.hook(named: hook) == nil {
            throw ValidationError("--hook \(hook) is not a hook; hooks are " + HookPoint.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if PluginLocator.standard.available().contains(where: { $0.name == name && $0.origin == .shipped }) {
            throw ValidationError("\(name) is a plugin shipped with Tide; a plugin of that name in \(dir) would hide it "
                                  + "(tide plugins list shows which is found): choose another name")
        }
    }

    func run() throws {
        let folder = URL(fileURLWithPath: dir)
        let plugin = folder.appendingPathComponent("\(name).lua")
        let test = folder.appendingPathComponent("\(name)_test.lua")
        for file in [plugin, test] where FileManager.default.fileExists(atPath: file.path) {
            Terminal.warn("Error: \(file.relativePath) exists: choose another name, or remove it first")
            throw ExitCode(2)
        }
        let scaffold = PluginScaffold(name: name, hooks: hooks.compactMap(PluginScaffold.hook(named:)))
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(scaffold.plugin.utf8).write(to: plugin, options: .withoutOverwriting)
            try Data(scaffold.test.utf8).write(to: test, options: .withoutOverwriting)
        } catch {
            Terminal.warn("Error: cannot write the plugin in \(dir): \(FileSystemFailure.reason(error))")
            throw ExitCode(2)
        }
        print("wrote \(plugin.relativePath) (hooks: \(scaffold.hooks.map(\.rawValue).joined(separator: ", "))) and \(test.relativePath)")
        print("next: tide plugins test \(test.relativePath)   then   tide chat --plugin \(plugin.relativePath)")
    }
}
