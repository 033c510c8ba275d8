import TideCore

/// A conversation as it happened, to be written as a script that replays it: what the chat's
/// `/save` and `tide logs export` write. Generated replies are recorded (`@generated`), so
/// `tide run` generates them again, each under the settings it had; written and interrupted
/// replies are fixed history. A reply's rounds of tool calls are written before it.
public struct RecordedConversation: Sendable {
    /// One message, with what the script needs to know of it.
    public struct Message: Sendable {
        public var role: TurnRole
        public var text: String
        /// For a user message, the settings it was sent with.
        public var settings: TurnSettings?
        /// For a generated reply, how it ended; `nil` for one written or interrupted.
        public var record: ReplyRecord?
        /// Whether the reply was cut short.
        public var interrupted: Bool
        /// For a reply, its rounds of tool calls before the answer.
        public var rounds: [ToolRound]
        /// For a thinking model's reply, its reasoning.
        public var reasoning: String?

        /// A message.
        public init(role: TurnRole, text: String, settings: TurnSettings? = nil, record: ReplyRecord? = nil,
                    interrupted: Bool = false, rounds: [ToolRound] = [], reasoning: String? = nil) {
            self.role = role
            self.text = text
            self.settings = settings
            self.record = record
            self.interrupted = interrupted
            self.rounds = rounds
            self.reasoning = reasoning
        }
    }

    /// What comes first: a comment, the model's directives.
    public var header: [ScriptItem]
    /// The model's default parameters, where a replay starts.
    public var defaults: [ParameterSetting]
    /// The messages in order (system messages are written with the settings of each turn).
    public var messages: [Message]
    /// The settings at the end, written after the last message where they changed.
    public var finalSettings: TurnSettings

    /// A recorded conversation.
    public init(header: [ScriptItem], defaults: [ParameterSetting], messages: [Message], finalSettings: TurnSettings) {
        self.header = header
        self.defaults = defaults
        self.messages = messages
        self.finalSettings = finalSettings
    }

    /// The script: the header, then the settings of the first message before the first turn and
    /// again, as directives (and a `system:` turn), before each turn where they changed; then the
    /// settings changed after the last message.
    public var script: ConversationScript {
        var items = header
        var current = messages.lazy.compactMap(\.settings).first ?? finalSettings
        items += current.initialItems(over: defaults)
        // Written even when empty: a replay would otherwise start with the model's default.
        items += [.blank, .turn(Turn(.system, current.systemPrompt ?? ""))]
        for message in messages {
            switch message.role {
            case .system: continue
            case .user:
                let settings = message.settings ?? current
                items += settings.items(after: current)
                current = settings
                items += [.blank, .turn(Turn(.user, message.text))]
            case .assistant:
                items += message.rounds.flatMap(\.items)
                if let reasoning = message.reasoning { items.append(.turn(Turn(.reasoning, reasoning))) }
                items.append(.turn(Turn(.assistant, message.text)))
                if let record = message.record {
                    items.append(.generated(record))
                } else if message.interrupted {
                    items.append(.comment(" interrupted"))
                }
            case .toolCall, .tool, .reasoning: continue
            }
        }
        if finalSettings != current {
            items += [.blank, .comment(" settings changed after the last message")] + finalSettings.items(after: current)
        }
        return ConversationScript(entries: items.map { ScriptEntry($0) })
    }
}
