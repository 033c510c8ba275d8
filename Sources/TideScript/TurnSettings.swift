import TideCore

/// The settings a message of a conversation was sent with: what a saved or exported script writes
/// down before the turn where they changed, so that `tide run` generates each reply under the
/// settings it had.
public struct TurnSettings: Sendable, Equatable {
    /// Every generation parameter.
    public var parameters: [ParameterSetting]
    /// The reply format's directive, if one is set (and came from a file, or is plain JSON).
    public var format: FormatSetting?
    /// The plugins in hook order: the name `@unload` takes, and the spec `@plugin` writes.
    public var plugins: [(name: String, spec: String)]
    /// The system prompt; `nil` for none.
    public var systemPrompt: String?

    /// Settings.
    public init(parameters: [ParameterSetting], format: FormatSetting?, plugins: [(name: String, spec: String)],
                systemPrompt: String?) {
        self.parameters = parameters
        self.format = format
        self.plugins = plugins
        self.systemPrompt = systemPrompt
    }

    public static func == (left: TurnSettings, right: TurnSettings) -> Bool {
        left.parameters == right.parameters && left.format == right.format && left.systemPrompt == right.systemPrompt
            && left.plugins.map(\.spec) == right.plugins.map(\.spec)
    }

    /// The script items that take a conversation from `previous` to these settings: the
    /// parameters and format that changed, the plugins unloaded and loaded (kept ones stay if
    /// they still come first, in order), and a `system:` turn for a new system prompt.
    func items(after previous: TurnSettings) -> [ScriptItem] {
        var items: [ScriptItem] = zip(previous.parameters, parameters).filter { $0 != $1 }.map { .directive(.parameter($1)) }
        if format != previous.format { items.append(.directive(.format(format ?? .text))) }
        let kept = zip(previous.plugins, plugins).prefix { $0.spec == $1.spec }.count
        items += previous.plugins[kept...].map { .directive(.unload($0.name)) }
        items += plugins[kept...].map { .directive(.plugin($0.spec)) }
        if systemPrompt != previous.systemPrompt { items += [.blank, .turn(Turn(.system, systemPrompt ?? ""))] }
        return items
    }

    /// The settings as a first set of directives: the parameters that differ from `defaults` (the
    /// model's, where a replay starts), the format, the plugins.
    func initialItems(over defaults: [ParameterSetting]) -> [ScriptItem] {
        var items: [ScriptItem] = parameters.filter { !defaults.contains($0) }.map { .directive(.parameter($0)) }
        if let format { items.append(.directive(.format(format))) }
        return items + plugins.map { .directive(.plugin($0.spec)) }
    }
}
