import Foundation
import TideCore
import TideLua

extension PluginLocator {
    /// Where the `@plugin` names of the script at `file` are looked up: the script's folder, a
    /// `Plugins` folder beside it (as `Conversations/` and `Plugins/` sit in a project), then
    /// this locator's folders (and the shipped plugins, if it looks there).
    public func forScript(at file: String) -> PluginLocator {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        let beside = folder.deletingLastPathComponent().appendingPathComponent("Plugins")
        return PluginLocator(directories: [folder, beside] + directories, includesShipped: includesShipped)
    }
}

extension PluginSpec {
    /// This spec as the script at `file` means it: a relative path (`@plugin ./x.lua`) is
    /// relative to the script's folder, not to where Tide runs.
    public func relative(toScript file: String) -> PluginSpec {
        guard PluginSpec.isPath(name), !name.hasPrefix("/") else { return self }
        var relative = self
        relative.name = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(name).path
        return relative
    }
}
