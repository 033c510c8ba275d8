import Foundation
import TideCore
import TideFormat
import TideLua
import TideScript

extension ChatController {
    /// Carries out a command.
    func run(_ command: SlashCommand) async throws -> ChatOutcome {
        switch command {
        case .help: output(.notice(Self.help))
        case .system(let text): setSystemPrompt(text)
        case .set(let name, let value): try set(name, value)
        case .show: await show()
        case .plugins: listPlugins()
        case .tools(let argument): try tools(argument)
        case .load(let text):
            let loaded = try loadPlugin(try PluginSpec(parsing: text))
            try session.backend.checkSupport(of: [loaded.plugin])
            install(plugins + [loaded])
            output(.notice("loaded \(loaded.plugin.name) \(loaded.plugin.version) (\(loaded.plugin.path))"))
        case .unload(let name):
            try unload(name)
            output(.notice("unloaded \(name)"))
        case .reload(let name): try reload(name)
        case .retry:
            guard let last = lastExchange else { throw ChatError("there is no reply to retry") }
            let message = history[last].content
            truncateHistory(to: last)
            await ask(message)
        case .undo:
            guard let last = lastExchange else { throw ChatError("there is nothing to undo") }
            truncateHistory(to: last)
            output(.notice("dropped the last exchange; \(exchangeCount) left"))
        case .reset:
            truncateHistory(to: conversationStart)
            output(.notice("the conversation starts again"))
        case .trace(let setting): try trace(setting)
        case .stats:
            guard let summary = lastSummary else { throw ChatError("no reply yet") }
            output(.notice(StatisticsReport(statistics: summary.statistics, stopReason: summary.stopReason,
                                            placement: session.backend.modelDescription.placement).description))
        case .save(let path): try save(to: path)
        case .open(let path): try await open(path)
        case .history(let count): try showHistory(count)
        case .model(let name): try switchModel(to: name)
        case .quit: return .quit
        }
        return .proceed
    }

    static var help: String {
        let width = SlashCommand.catalogue.map(\.usage.count).max() ?? 0
        let commands = SlashCommand.catalogue.map { command in
            command.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.summary
        }
        return (["Commands:"] + commands.map { "  " + $0 } + [
            "Input:",
            "  a line is a message; \"\"\" on a line of its own starts and ends a message of several lines",
            "  //text sends a message that starts with /",
            "  Tab completes commands, plugin names, parameters and paths; ↑ and ↓ walk the history",
            "  Ctrl-C stops a reply (the part shown is kept) or clears the line; Ctrl-D leaves",
        ]).joined(separator: "\n")
    }

    /// Unloads the plugin named `name` (the last loaded, if several are).
    func unload(_ name: String) throws {
        guard let index = plugins.lastIndex(where: { $0.plugin.name == name }) else {
            throw ChatError("no plugin named \(name) is loaded; loaded: " + Self.list(pluginNames))
        }
        install(plugins.enumerated().filter { $0.offset != index }.map(\.element))
    }

    static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    var exchangeCount: Int { history.count { $0.role == .user } }

    /// Where the last exchange starts: its user message.
    var lastExchange: Int? { history.lastIndex { $0.role == .user } }

    func setSystemPrompt(_ text: String?) {
        guard let text else {
            let current = history.first { $0.role == .system }?.content
            output(.notice(current.map { "system: \($0)" } ?? "no system prompt"))
            return
        }
        session.history = history.replacingSystemPrompt(text)
        systemPromptChosen = true
        output(.notice(text.isEmpty ? "removed the system prompt" : "system prompt set"))
    }

    func set(_ name: String?, _ value: String) throws {
        guard let name else {
            output(.notice(parameterSummary))
            return
        }
        if FormatSetting.names.contains(name) { return try setFormat(name, value) }
        if name == DraftMode.settingName { return try setDraft(value) }
        if name == Self.reasoningSetting { return try setReasoning(value) }
        if value.contains(where: \.isNewline) { throw ChatError("/set \(name): a value for \(name) fits on one line") }
        let setting: ParameterSetting
        do {
            setting = try ParameterSetting(name: name, text: value)
        } catch {
            throw ChatError("/set \(name): \(error)")
        }
        var parameters = session.parameters
        setting.apply(to: &parameters)
        session.parameters = parameters
        output(.notice(Self.shown(setting)))
    }

    /// `/set format json|text`, `/set json-schema FILE`, `/set grammar FILE`: the replies' format
    /// from now on; a file is read and checked now, and kept by its absolute path for `/save`.
    func setFormat(_ name: String, _ value: String) throws {
        let usage = "/set format json|text, /set json-schema FILE or /set grammar FILE"
        guard !value.isEmpty else { throw ChatError("/set \(name) needs a value: \(usage)") }
        let format: ReplyFormat?
        do {
            switch name {
            case "format" where value == "json": format = .json
            case "format" where value == "text": format = nil
            case "format": throw ChatError("/set format is json or text, not '\(value)'; \(usage)")
            default:
                let path = URL(fileURLWithPath: NSString(string: value).expandingTildeInPath).standardizedFileURL.path
                format = try .reading(name == "grammar" ? .grammar : .jsonSchema, file: path)
            }
        } catch let error as ChatError {
            throw error
        } catch {
            throw ChatError("/set \(name): \(error)")
        }
        session.parameters.format = format
        output(.notice("format " + (format?.description ?? "text")))
    }

    /// `/set draft lookup|always|off`: whether replies draft tokens to check in one decode (the
    /// same replies, at another speed): where a check pays, whenever there is a draft, or never.
    func setDraft(_ value: String) throws {
        guard let draft = DraftMode(rawValue: value) else {
            throw ChatError("/set draft is " + DraftMode.allCases.map(\.rawValue).joined(separator: ", ") + ", not '\(value)'")
        }
        session.parameters.draft = draft
        output(.notice("draft \(draft.rawValue)"))
    }

    /// `/set reasoning show|hide`: whether a thinking model's reasoning is shown (it is kept
    /// either way).
    static let reasoningSetting = "reasoning"

    func setReasoning(_ value: String) throws {
        guard ["show", "hide"].contains(value) else { throw ChatError("/set reasoning is show or hide, not '\(value)'") }
        showsReasoning = value == "show"
        output(.notice("reasoning \(value)"))
    }

    /// Every name `/set` takes: the parameters, the format's, `draft` and `reasoning`.
    static var settingNames: [String] {
        ParameterSetting.names + FormatSetting.names + [DraftMode.settingName, reasoningSetting]
    }

    /// A setting as `/set` and `/show` show it: `top-k 40`, `stop none`.
    static func shown(_ setting: ParameterSetting) -> String {
        setting.declaration.text(of: setting.value).isEmpty ? "\(setting.name) none" : setting.description
    }

    var parameterSummary: String {
        (ParameterSetting.all(of: session.parameters).map(Self.shown) + ["format " + (session.parameters.format?.description ?? "text"), "draft \(session.parameters.draft.rawValue)",
             "reasoning " + (showsReasoning ? "show" : "hide")])
            .joined(separator: " · ")
    }

    func show() async {
        let description = session.backend.modelDescription
        var lines = ["model: \(description.name) (\(model.origin(in: setup)))"
            + (description.architecture.map { " · \($0)" } ?? "")
            + (description.vocabularySize.map { " · vocabulary \($0)" } ?? "")]
        if let used = try? await session.backend.promptTokenCount(for: history, rawPrompt: session.parameters.rawPrompt) {
            lines.append("context: \(used) of \(description.contextSize) tokens used"
                + (description.trainedContextLength.map { " (trained on \($0))" } ?? ""))
        }
        if let placement = description.placement { lines.append("runs on: " + placement) }
        let template = model.templateName(for: setup)
        lines.append("template: " + (template.map { $0 == "model" ? "the model's own" : $0 } ?? "the server's"))
        lines.append("conversation: \(exchangeCount) exchange" + (exchangeCount == 1 ? "" : "s"))
        let system = history.first { $0.role == .system }?.content
        lines.append("system: " + (system.map { $0.split(separator: "\n").first.map(String.init) ?? "" } ?? "none"))
        lines.append("parameters: " + parameterSummary)
        lines.append("plugins: " + pluginDescriptions)
        let defaults = ModelDefaultsText(model.defaults).summary
        if !defaults.isEmpty { lines.append("the model's defaults: " + defaults + " (tide models show \(setup.model))") }
        output(.notice(lines.joined(separator: "\n")))
    }

    var pluginDescriptions: String {
        let disabled = Set(session.disabledHookNames)
        return Self.list(plugins.map { active in
            active.spec.description + (disabled.contains(active.plugin.name) ? " (disabled after an error)" : "")
        })
    }

    func listPlugins() {
        let disabled = Set(session.disabledHookNames)
        var lines = plugins.isEmpty ? ["no plugins loaded"] : ["loaded, in hook order:"]
        for active in plugins {
            let hooks = active.plugin.points.map(\.rawValue).sorted().joined(separator: ", ")
            lines.append("  \(active.spec) — \(active.plugin.summary) [\(hooks)]"
                + (disabled.contains(active.plugin.name) ? " (disabled after an error; /reload to enable)" : ""))
        }
        let available = configuration.locator.pluginNames().filter { !pluginNames.contains($0) }
        if !available.isEmpty { lines.append("available (/load NAME): " + available.joined(separator: ", ")) }
        output(.notice(lines.joined(separator: "\n")))
    }

    /// `/tools`: lists the tools of the loaded plugins and of the MCP servers, each on or off;
    /// `/tools enable|disable NAME|all` turns tools on or off (``GenerationParameters/toolNames``).
    func tools(_ argument: String?) throws {
        let declared = session.allToolProviders.flatMap { provider in provider.tools.map { (tool: $0, plugin: provider.name) } }
        let names = declared.map(\.tool.name)
        guard let argument else {
            guard !declared.isEmpty else {
                output(.notice("no loaded plugin or MCP server has tools (/load calculator loads one; tide plugins list shows the "
                               + "others; tide chat --mcp 'NAME: COMMAND' starts a server)"))
                return
            }
            let offered = session.parameters.toolNames ?? names
            let choice = session.parameters.toolChoice
            output(.notice((["tools (tool choice \(choice)" + (choice == .none ? ": none is offered" : "") + "):"]
                + declared.map { entry in
                    "  \(offered.contains(entry.tool.name) ? "on " : "off") \(entry.tool.name) (\(entry.plugin)) — \(entry.tool.description)"
                }).joined(separator: "\n")))
            return
        }
        let words = argument.split(separator: " ").map(String.init)
        guard words.count == 2, ["enable", "disable"].contains(words[0]) else {
            throw ChatError("/tools takes enable NAME, disable NAME, enable all or disable all")
        }
        let chosen = words[1] == "all" ? names : [words[1]]
        guard words[1] == "all" || names.contains(words[1]) else {
            throw ChatError("no loaded plugin or MCP server has a tool named \(words[1]); " + (names.isEmpty ? "none has tools" : "the tools are " + Self.list(names)))
        }
        let offered = Set(session.parameters.toolNames ?? names)
        let now = words[0] == "enable" ? offered.union(chosen) : offered.subtracting(chosen)
        session.parameters.toolNames = now.count == names.count ? nil : names.filter(now.contains)
        output(.notice(now.isEmpty ? "no tools are offered" : "offered: " + Self.list(names.filter(now.contains))))
    }

    /// New instances from the plugin files as they are now, in the same places. A plugin that no
    /// longer loads keeps its old instance, and the error is shown.
    func reload(_ name: String?) throws {
        if let name, !pluginNames.contains(name) {
            throw ChatError("no plugin named \(name) is loaded; loaded: " + Self.list(pluginNames))
        }
        guard !plugins.isEmpty else { throw ChatError("no plugins loaded") }
        var reloaded = plugins
        for (index, active) in plugins.enumerated() where name == nil || active.plugin.name == name {
            do {
                reloaded[index] = try loadPlugin(active.spec)
                output(.notice("reloaded \(active.plugin.name) (\(reloaded[index].plugin.path))"))
            } catch {
                output(.problem("\(active.plugin.name) was not reloaded, the loaded version stays: \(error)"))
            }
        }
        install(reloaded)
    }

    /// `/trace` says where hook calls are traced; `/trace on [FILE]` traces them into the chat
    /// (or FILE, as JSON Lines); `/trace off` stops.
    func trace(_ setting: SlashCommand.TraceSetting?) throws {
        switch setting {
        case nil:
            let place = tracing.map { $0.file.map { "into \($0.path)" } ?? "into the chat" }
            output(.notice(place.map { "hook calls are traced \($0) (/trace off stops)" } ?? "hook calls are not traced (/trace on starts)"))
        case .on(let path)?:
            try startTrace(to: path)
            output(.notice("tracing hook calls into " + (path ?? "the chat")))
        case .off?:
            tracing = nil
            output(.notice("hook calls are no longer traced"))
        }
    }

    func switchModel(to name: String?) throws {
        guard let name else {
            output(.notice("model: \(session.backend.modelDescription.name) (\(model.origin(in: setup)))"))
            return
        }
        let newSetup = named(name)
        let loaded = try models.model(for: newSetup)
        // The new model's default system prompt, unless the user chose one.
        let messages = systemPromptChosen ? history : history.replacingSystemPrompt(loaded.defaultSystemPrompt)
        session = try Self.session(on: loaded, setup: newSetup, plugins: plugins, configuration: configuration,
                                   parameters: session.parameters, history: messages)
        session.hookTrace = tracing?.trace
        setup = newSetup
        model = loaded
        output(.notice("now chatting with \(session.backend.modelDescription.name); the conversation is kept"))
    }
}

/// A command that cannot be carried out, and why.
struct ChatError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
