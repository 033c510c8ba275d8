import TideCore

/// The one place plugins are made from their specs: the front ends' plugins, a script's
/// `@plugin`, the chat's `/load`, a judge's. Each is found where ``locator`` looks and runs in a
/// sandbox of ``limits``.
public struct PluginMaker: Sendable {
    /// Where plugins named by name are found.
    public var locator: PluginLocator
    /// The sandbox's limits.
    public var limits: LuaLimits

    /// A maker that finds plugins with `locator` and runs them within `limits`.
    public init(locator: PluginLocator = .standard, limits: LuaLimits = LuaLimits()) {
        self.locator = locator
        self.limits = limits
    }

    /// The plugin `spec` names, loaded and configured; its messages (`tide.log`) go to `log`.
    public func plugin(_ spec: PluginSpec, log: @escaping @Sendable (String) -> Void) throws(PluginError) -> LuaPlugin {
        try LuaPlugin(spec: spec, locator: locator, limits: limits, log: log)
    }

    /// The plugins `settings` name, in order; an error names the setting and where it was given.
    public func plugins(_ settings: [Sourced], log: @escaping @Sendable (String) -> Void) throws(SourcedError) -> [LuaPlugin] {
        try sources(settings).map { source, setting throws(SourcedError) in
            do {
                return try source.instantiate(limits: limits, log: log)
            } catch {
                throw SourcedError(setting, error)
            }
        }
    }

    /// The hooks of each conversation (`tide serve` gives every request its own, since plugins
    /// keep state across a reply): the plugins `settings` name, made afresh from their files
    /// read once now. ``plugins(_:log:)`` made first tells a mistake before anything starts.
    public func factory(_ settings: [Sourced]) throws(SourcedError) -> HookFactory {
        let sources = try sources(settings)
        let limits = limits
        return HookFactory { log in try sources.map { try $0.source.instantiate(limits: limits, log: log) } }
    }

    /// The files `settings` name, read.
    private func sources(_ settings: [Sourced]) throws(SourcedError) -> [(source: PluginSource, setting: Sourced)] {
        try settings.map { setting throws(SourcedError) in
            do {
                return (try PluginSource(spec: PluginSpec(parsing: setting.text), locator: locator), setting)
            } catch {
                throw SourcedError(setting, error)
            }
        }
    }
}
