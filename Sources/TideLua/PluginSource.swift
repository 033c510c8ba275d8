import Foundation
import TideCore

/// A plugin found and read once, to make fresh instances from (`tide serve` gives every
/// request its own).
public struct PluginSource: Sendable, Hashable {
    /// The plugin and its options, as given.
    public let spec: PluginSpec
    /// The file it was read from (``PluginLocator/Found/path``).
    public let path: String
    /// The file's Lua source.
    public let text: String

    /// The most a plugin file may hold.
    public static let fileSizeLimit = 4 << 20

    /// Finds and reads the plugin `spec` names.
    public init(spec: PluginSpec, locator: PluginLocator = .standard) throws(PluginError) {
        let found = try locator.locate(spec.name)
        text = try found.source()
        self.spec = spec
        path = found.path
    }

    /// A new instance, configured with the spec's options.
    public func instantiate(limits: LuaLimits = LuaLimits(), log: @escaping @Sendable (String) -> Void = { _ in })
        throws(PluginError) -> LuaPlugin
    {
        try LuaPlugin(source: text, path: path, options: spec.options, spec: spec, limits: limits, log: log)
    }
}
