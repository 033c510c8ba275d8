import Foundation
import TideCore
import TideLua
import TideProvider
import TideRunner
import TideScript

extension ChatController {
    /// The conversation as a conversation script (``RecordedConversation``): the model and its
    /// context, then the settings each message was sent with — the parameters that differ from
    /// the model's defaults, the reply format, the plugins, the system prompt — and the turns.
    public var script: ConversationScript {
        var header: [ScriptItem] = [
            .comment(" Saved by tide chat on \(Date.now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))); replay it with: \(replayCommand(for: "FILE"))"),
            .directive(.model(setup.lastingModelName)),
        ]
        if let size = setup.contextSize { header.append(.directive(.contextSize(size))) }
        if let template = setup.template { header.append(.directive(.template(template))) }
        if let format = setup.toolFormat { header.append(.directive(.toolFormat(format))) }
        let now = currentSettings
        if let format = session.parameters.format, now.format == nil {
            header.append(.comment(" the replies' \(format.kind.rawValue) came from no file, so it is not saved"))
        }
        // A turn of /open's was not sent here: it takes the settings of the turn before it (the
        // first known ones at the start).
        var known = turnSettings.compactMap { $0 }.first ?? now
        var (userIndex, replies) = (0, records.makeIterator())
        var messages: [RecordedConversation.Message] = []
        var rounds: [ChatMessage] = []
        for message in history {
            switch message.role {
            case .system:
                messages.append(RecordedConversation.Message(role: .system, text: message.content))
            case .user:
                if userIndex < turnSettings.count, let recorded = turnSettings[userIndex] { known = recorded }
                userIndex += 1
                rounds = []  // calls a turn ended with, unanswered (a tool no plugin runs), are not replayed
                messages.append(RecordedConversation.Message(role: .user, text: message.content, settings: known))
            // A turn's tool calls and results are written before its answer.
            case .assistant where !message.toolCalls.isEmpty, .tool:
                rounds.append(message)
            case .assistant:
                messages.append(RecordedConversation.Message(role: .assistant, text: message.content, record: replies.next() ?? nil,
                                                             interrupted: message.interrupted, rounds: ToolRound.rounds(in: rounds),
                                                             reasoning: message.reasoning))
                rounds = []
            }
        }
        return RecordedConversation(header: header, defaults: ParameterSetting.all(of: model.defaultParameters),
                                    messages: messages, finalSettings: now).script
    }

    /// This chat's setup with the model `name`.
    func named(_ name: String) -> ModelSetup {
        var named = setup
        named.model = name
        return named
    }

    /// Writes ``script`` to `path` (`.tide` is added when the name has no extension). An existing
    /// file is replaced only if it is a conversation script.
    func save(to path: String) throws {
        var file = NSString(string: path).expandingTildeInPath
        if URL(fileURLWithPath: file).pathExtension.isEmpty { file += "." + ScriptFiles.fileExtension }
        if FileManager.default.fileExists(atPath: file), !file.hasSuffix("." + ScriptFiles.fileExtension) {
            throw ChatError("\(file) exists and is not a conversation script (.\(ScriptFiles.fileExtension)); choose another name")
        }
        try ScriptFiles.write(script, to: file)
        output(.notice("saved \(exchangeCount) exchange\(exchangeCount == 1 ? "" : "s") to \(file); replay with: \(replayCommand(for: file))"))
    }

    /// The command that replays the chat saved to `file`, on the server too if the model runs on one.
    func replayCommand(for file: String) -> String {
        "tide run " + (setup.server.map { "--remote \($0) " } ?? "") + file
    }

    /// Makes a conversation script the conversation: its parameters and plugins apply, its
    /// system prompt and turns become the history, and the turns it leaves unanswered are
    /// answered now, in order. The steps mean what they mean to `tide run` (one
    /// ``ScriptInterpreter``); nothing changes if the script cannot be read, a plugin cannot be
    /// loaded (or cannot run on this model) or an `@unload` names no loaded plugin.
    func open(_ path: String) async throws {
        let file = NSString(string: path).expandingTildeInPath
        let script = try ConversationScript(contentsOf: URL(fileURLWithPath: file))  // its errors name the file
        let interpreter: ScriptInterpreter
        do {
            interpreter = try ScriptInterpreter(script, file: file, loaded: pluginNames, maker: configuration.maker,
                                                log: { [output] in output(.notice($0)) })
        } catch {
            throw ChatError(error.description)
        }
        try session.backend.checkSupport(of: interpreter.plugins.values.map(\.plugin))
        var active = plugins
        active += interpreter.plugins.values.map { ActivePlugin(spec: $0.spec, plugin: $0.plugin) }
        // The system prompt stays unless the script has its own.
        truncateHistory(to: conversationStart)
        for (index, step) in interpreter.steps.enumerated() {
            switch step {
            case .directive(.model(let name), _) where named(name).lastingModelName != setup.lastingModelName:
                output(.notice("the script names the model \(name); this chat runs \(setup.model) (/model \(name) to switch)"))
            case .directive(.mcp(let server), _)
                where !configuration.toolProviders.contains { $0.name == "mcp:" + (server.split(separator: ":").first ?? "").trimmingCharacters(in: .whitespaces) }:
                output(.notice("the script names the MCP server \(server); this chat offers the tools of the servers it started with "
                               + "(tide chat --mcp '\(server)')"))
            case .system: systemPromptChosen = true
            case .history:
                records.append(nil)
                turnSettings.append(currentSettings)
            default: break
            }
            let reply = interpreter.apply(index, to: session)
            // The chat keeps each plugin's spec, for /reload and /save.
            plugins = session.hooks.compactMap { hook in active.first { $0.plugin === hook as? LuaPlugin } }
            guard let reply else { continue }
            if let recorded = reply.recorded {
                turnSettings.append(currentSettings)
                var history = session.history + [ChatMessage(.user, reply.user)]
                history += ToolRound.messages(reply.given + recorded.rounds, at: history.count)
                session.history = history + [ChatMessage(.assistant, recorded.text)]
                records.append(recorded.record)
            } else {
                output(.userTurn(reply.user))
                await ask(reply.user, step: reply)
            }
        }
        output(.notice("opened \(file): \(exchangeCount) exchange\(exchangeCount == 1 ? "" : "s"); plugins: " + Self.list(pluginNames)))
    }
}
