/// Keeps a record of a session's replies: Tide's conversation log implements it. A session calls
/// ``record(_:)`` once for every reply, when it has ended (finished, stopped, cancelled or failed),
/// on the reply's task: it must return at once and write elsewhere, and it never fails the reply.
public protocol ExchangeRecorder: Sendable {
    /// Records one exchange.
    func record(_ exchange: Exchange)
}

/// One exchange: a reply that has ended, the conversation it answered and the settings it was made under.
public struct Exchange: Sendable {
    /// The conversation as sent: the history, then the user's message (or the results of
    /// calls given before the reply).
    public var messages: [ChatMessage]
    /// The reply as the history keeps it (the text after `on_reply`; `interrupted` when it was
    /// cut short).
    public var reply: ChatMessage
    /// How it ended, with its statistics; `nil` for a reply that failed with an error.
    public var summary: ReplySummary?
    /// The parameters it was generated with.
    public var parameters: GenerationParameters
    /// The hooks that ran, as their specifications (``ChatHook/specification``), in order.
    public var plugins: [String]
    /// The reply's own rounds of tool calls, before it: each assistant message with its calls,
    /// then the results (`tool` messages). Rounds given before the reply (a client's, a
    /// script's) are at the end of ``messages``.
    public var rounds: [ChatMessage]

    /// A record.
    public init(messages: [ChatMessage], reply: ChatMessage, summary: ReplySummary?, parameters: GenerationParameters,
                plugins: [String], rounds: [ChatMessage] = []) {
        self.messages = messages
        self.reply = reply
        self.summary = summary
        self.parameters = parameters
        self.plugins = plugins
        self.rounds = rounds
    }
}
