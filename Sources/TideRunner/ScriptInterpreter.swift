import Foundation
import TideCore
import TideFormat
import TideLua
import TideScript

/// The one interpreter of a conversation script's steps, used by `tide run` and by `tide chat`'s
/// `/open`, so that a script means the same in both.
///
/// Everything that can fail is done first, before anything changes: each `@plugin` is loaded
/// (looked up next to the script), each `@unload` is checked against the plugins loaded by
/// then, and each `@json-schema` and `@grammar` file is read and checked. Then ``apply(_:to:)`` applies the steps in order to a session: parameters, plugins,
/// the system prompt and written turns change the session; a user turn the model answers is
/// handed back to the caller, which generates (and checks) the reply or records it.
///
/// Plugins follow one rule: `@plugin NAME` replaces a loaded plugin of the same name where it
/// stands in the hook order, else it runs after those loaded; `@unload NAME` removes it.
public struct ScriptInterpreter: Sendable {
    /// The steps, in order.
    public let steps: [ScriptStep]
    /// The plugin each `@plugin` step loads and its spec (a path made relative to the script
    /// resolved), by step index.
    public let plugins: [Int: (spec: PluginSpec, plugin: LuaPlugin)]
    /// The reply format each format directive sets (`nil` for `@format text`), by step index.
    public let formats: [Int: ReplyFormat?]

    /// Loads the plugins of `script` at `file` and checks its `@unload`s, starting from the
    /// plugins named `loaded` (`--plugin`, or those of the chat). Errors name the file and line.
    public init(_ script: ConversationScript, file: String, loaded: [String], maker: PluginMaker,
                log: @escaping @Sendable (String) -> Void) throws(ScriptRunError)
    {
        steps = script.steps
        var plugins: [Int: (spec: PluginSpec, plugin: LuaPlugin)] = [:]
        var formats: [Int: ReplyFormat?] = [:]
        var names = loaded
        for (index, step) in steps.enumerated() {
            switch step {
            case .directive(.plugin(let text), let line):
                do {
                    let spec = try PluginSpec(parsing: text).relative(toScript: file)
                    var scriptMaker = maker
                    scriptMaker.locator = maker.locator.forScript(at: file)
                    let plugin = try scriptMaker.plugin(spec, log: log)
                    plugins[index] = (spec, plugin)
                    Self.load(plugin.name, into: &names, name: { $0 })
                } catch {
                    throw ScriptRunError("\(file):\(line): @plugin \(text): \(error)")
                }
            case .directive(.unload(let name), let line):
                guard Self.unload(name, from: &names, name: { $0 }) else {
                    throw ScriptRunError("\(file):\(line): @unload \(name): no plugin of that name is loaded here; loaded: "
                                             + (names.isEmpty ? "none" : names.joined(separator: ", ")))
                }
            case .directive(.format(let setting), let line):
                do {
                    formats[index] = try Self.format(setting, script: file)
                } catch {
                    throw ScriptRunError("\(file):\(line): \(setting.printed): \(error)")
                }
            default: break
            }
        }
        self.plugins = plugins
        self.formats = formats
    }

    /// The format `setting` names, its file read from the folder of the script at `file`.
    static func format(_ setting: FormatSetting, script file: String) throws(ReplyFormatError) -> ReplyFormat? {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        switch setting {
        case .text: return nil
        case .json: return .json
        case .jsonSchema(let path): return try .reading(.jsonSchema, file: path, from: folder)
        case .grammar(let path): return try .reading(.grammar, file: path, from: folder)
        }
    }

    /// Applies step `index` to `session`. Returns the reply step of a user turn the model
    /// answers, for the caller to generate or record; `nil` for every other step.
    public func apply(_ index: Int, to session: ChatSession) -> ReplyStep? {
        switch steps[index] {
        case .directive(.parameter(let setting), _):
            var parameters = session.parameters
            setting.apply(to: &parameters)
            session.parameters = parameters
        case .directive(.format, _):
            session.parameters.format = formats[index] ?? nil
        case .directive(.tolerance(let tolerance), _):
            session.parameters.tolerance = tolerance
        case .directive(.plugin, _):
            guard let plugin = plugins[index]?.plugin else { return nil }
            var hooks = session.hooks
            Self.load(plugin, into: &hooks, name: \.name)
            session.hooks = hooks
        case .directive(.unload(let name), _):
            var hooks = session.hooks
            _ = Self.unload(name, from: &hooks, name: \.name)
            session.hooks = hooks
        case .directive(.name, _), .directive(.description, _), .directive(.model, _), .directive(.judge, _), .directive(.contextSize, _),
             .directive(.minimumPassRate, _), .directive(.variable, _), .directive(.data, _), .directive(.mcp, _),
             .directive(.template, _), .directive(.toolFormat, _):
            break
        case .system(let text, _):
            session.history = session.history.replacingSystemPrompt(text)
        case .history(let user, let rounds, let assistant, let reasoning, _):
            var history = session.history + [ChatMessage(.user, user)]
            history += ToolRound.messages(rounds, at: history.count)
            session.history = history + [ChatMessage(.assistant, assistant, reasoning: reasoning)]
        case .reply(let reply):
            return reply
        }
        return nil
    }

    /// The reply to `step` in `session`: to its user turn, or, when tool calls and their results
    /// are written after it, to those results (the user turn and the rounds join the history
    /// first). `recorded` is checked by teacher forcing where it can be.
    public static func reply(to step: ReplyStep, in session: ChatSession, forcing recorded: RecordedTurn?)
        -> AsyncThrowingStream<ReplyEvent, any Error>
    {
        guard !step.given.isEmpty else { return session.reply(to: step.user, forcing: recorded) }
        var history = session.history + [ChatMessage(.user, step.user)]
        history += ToolRound.messages(step.given, at: history.count)
        session.history = history
        return session.replyToToolResults(forcing: recorded)
    }

    /// `@plugin`: replaces the plugin of the same name where it stands, else appends.
    static func load<Plugin>(_ plugin: Plugin, into list: inout [Plugin], name: (Plugin) -> String) {
        if let same = list.firstIndex(where: { name($0) == name(plugin) }) {
            list[same] = plugin
        } else {
            list.append(plugin)
        }
    }

    /// `@unload`: removes the plugin named `unloaded`; `false` if none is loaded.
    static func unload<Plugin>(_ unloaded: String, from list: inout [Plugin], name: (Plugin) -> String) -> Bool {
        guard let index = list.lastIndex(where: { name($0) == unloaded }) else { return false }
        list.remove(at: index)
        return true
    }
}
