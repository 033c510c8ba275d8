import Foundation
import TideCore
import TideLua
import TideScript

/// The settings a message of the chat was sent with: what `/save` writes down before the turn
/// where they changed, so that `tide run` generates each reply under the settings it had.
struct TurnSettings: Equatable {
    /// Every generation parameter.
    var parameters: [ParameterSetting]
    /// The reply format's directive, if one is set (and came from a file, or is plain JSON).
    var format: FormatSetting?
    /// The plugins in hook order: the name `@unload` takes, and the spec `@plugin` writes.
    var plugins: [(name: String, spec: String)]
    /// The system prompt; `nil` for none.
    var systemPrompt: String?

    static func == (left: TurnSettings, right: TurnSettings) -> Bool {
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
}

extension ChatController {
    /// The chat's settings now.
    var currentSettings: TurnSettings {
        TurnSettings(parameters: ParameterSetting.all(of: session.parameters), format: formatSetting,
                     plugins: plugins.map { active in
                         var spec = active.spec
                         if PluginLocator.isPath(spec.name) { spec.name = active.plugin.path }
                         return (active.plugin.name, spec.description)
                     },
                     systemPrompt: history.first { $0.role == .system }?.content)
    }

    /// The reply format as a directive; `nil` for free text, or for a format that came from no
    /// file (which cannot be written down).
    private var formatSetting: FormatSetting? {
        guard let format = session.parameters.format else { return nil }
        // By absolute path (a --json-schema given relative to the working directory too), so the
        // script finds the file wherever it is saved.
        let absolute = format.file.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        switch (format.kind, absolute) {
        case (.json, _): return .json
        case (.jsonSchema, let file?): return .jsonSchema(file: file)
        case (.grammar, let file?): return .grammar(file: file)
        case (_, nil): return nil
        }
    }

    /// The settings as a first set of directives: the parameters that differ from the model's
    /// defaults (where a replay starts), the format, the plugins.
    func initialItems(_ settings: TurnSettings) -> [ScriptItem] {
        let defaults = ParameterSetting.all(of: model.defaultParameters)
        var items: [ScriptItem] = settings.parameters.filter { !defaults.contains($0) }.map { .directive(.parameter($0)) }
        if let format = settings.format { items.append(.directive(.format(format))) }
        return items + settings.plugins.map { .directive(.plugin($0.spec)) }
    }
}
