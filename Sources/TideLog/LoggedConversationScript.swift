import Foundation
import TideCore
import TideFormat
import TideScript

extension LoggedConversation {
    /// The conversation as a script that `tide run` replays and checks: the model, then each
    /// user turn under the settings its reply was made with (parameters that differ from
    /// `defaults`, the model's; plugins; the system prompt), each generated reply recorded
    /// (`@generated`). A reply format is only described in the log, so it is named in a comment.
    public func script(defaults: GenerationParameters) -> ConversationScript {
        let system = messages.first { $0.role == .system }?.content
        var header: [ScriptItem] = [
            .comment(" Conversation \(summary.id) of the Tide log (\(summary.source.rawValue), \(summary.started)); "
                     + "replay it with: tide run FILE"),
            .directive(.model(summary.model)),
        ]
        // A prompt given as plain text (a text completion) is replayed as one.
        if messages.contains(where: { $0.reply?.parameters.parameters.rawPrompt == true }) { header.append(.directive(.template("raw"))) }
        let formats = Set(messages.compactMap { $0.reply?.parameters.format })
        if !formats.isEmpty {
            header.append(.comment(" the replies had a format (\(formats.sorted().joined(separator: ", "))), which the log does not keep"))
        }
        func settings(of reply: LoggedReply) -> TurnSettings {
            TurnSettings(parameters: ParameterSetting.all(of: reply.parameters.parameters), format: nil,
                         plugins: reply.plugins.map { spec in ((try? PluginSpec(parsing: spec).pluginName) ?? spec, spec) },
                         systemPrompt: system)
        }
        var recorded: [RecordedConversation.Message] = []
        for (index, message) in messages.enumerated() {
            switch message.role {
            case .system:
                recorded.append(.init(role: .system, text: message.content))
            case .user:
                // A user message takes the settings of the reply that answers it.
                let answer = messages.dropFirst(index + 1).first.flatMap { $0.role == .assistant ? $0.reply : nil }
                recorded.append(.init(role: .user, text: message.content, settings: answer.map(settings)))
            case .assistant:
                let reply = message.reply
                let rounds = (reply?.rounds ?? []).map { calls in
                    ToolRound(text: calls.first?.roundText ?? "", calls: calls.map(\.call.json), results: calls.map { $0.result ?? "" })
                }
                recorded.append(.init(role: .assistant, text: message.content, record: reply?.record, interrupted: reply?.interrupted ?? false,
                                      rounds: rounds, reasoning: message.reasoning))
            case .tool:
                continue  // the log keeps results with the reply they led to
            }
        }
        let last = messages.last { $0.reply != nil }?.reply.map(settings)
            ?? TurnSettings(parameters: ParameterSetting.all(of: defaults), format: nil, plugins: [], systemPrompt: system)
        return RecordedConversation(header: header, defaults: ParameterSetting.all(of: defaults), messages: recorded,
                                    finalSettings: last).script
    }
}

extension LoggedReply {
    /// What a script records of the reply (`@generated`); `nil` for one that was cut short or failed.
    public var record: ReplyRecord? {
        interrupted ? nil : stopReason.map {
            ReplyRecord(stopReason: $0, tokens: generatedTokens ?? 0, rounds: rounds.count { !($0.first?.given ?? true) })
        }
    }
}
