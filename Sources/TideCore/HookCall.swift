/// One call of a hook, as a trace records it (`--trace-hooks`, docs/plugins.md): which plugin,
/// at which point and position, what it was given and what it decided, in short, and what the
/// call cost.
public struct HookCall: Sendable, Hashable, Codable {
    /// The plugin's (hook's) name.
    public var plugin: String
    /// Where in the pipeline.
    public var hook: HookPoint
    /// The 0-based index in the reply of the token the call is about: the token about to be
    /// sampled (`on_logits`), the last one generated (`should_stop`), the last one in the text
    /// shown (`on_token`); `nil` for calls about the whole turn (`on_prompt`, `on_reply`, the
    /// tool hooks).
    public var position: Int?
    /// What the hook was given, in short.
    public var given: String
    /// What it returned or decided, in short (`failed: …` for a call that threw).
    public var outcome: String
    /// The instructions the call spent, as its budget counts them; `nil` for a hook that does not count.
    public var instructions: Int?
    /// How long the call took, in microseconds.
    public var microseconds: Double

    /// A record of one call.
    public init(plugin: String, hook: HookPoint, position: Int?, given: String, outcome: String,
                instructions: Int?, microseconds: Double)
    {
        self.plugin = plugin
        self.hook = hook
        self.position = position
        self.given = given
        self.outcome = outcome
        self.instructions = instructions
        self.microseconds = microseconds
    }

    /// The record as one line for a reader: `stop-on-pattern should_stop #37 "…text" → stop:
    /// matched (14 instructions, 88.6 µs)`.
    public var line: String {
        let place = position.map { " #\($0)" } ?? ""
        let cost = (instructions.map { "\($0) instructions, " } ?? "") + HookCostTable.microseconds(microseconds)
        return "\(plugin) \(hook)\(place) \(given) → \(outcome) (\(cost))"
    }

    /// The most characters of a text a record quotes.
    public static let excerptLength = 48

    /// `text` quoted, at most ``excerptLength`` characters of it: its end when `end`, else its
    /// start, with `…` where some is left out.
    public static func excerpt(_ text: String, end: Bool = false) -> String {
        guard text.count > excerptLength else { return QuotedString.quote(text) }
        return end ? "…" + QuotedString.quote(String(text.suffix(excerptLength)))
            : QuotedString.quote(String(text.prefix(excerptLength))) + "…"
    }
}

/// Where the records of hook calls go (`--trace-hooks`): a session gives each call of its hooks
/// to ``record(_:)`` as it ends, from the reply's task.
public protocol HookTrace: Sendable {
    /// Keeps one call's record.
    func record(_ call: HookCall)
}
