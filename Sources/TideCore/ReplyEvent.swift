/// What a reply stream delivers: text as it is produced, notices, and one final summary.
public enum ReplyEvent: Sendable {
    /// The next piece of the reply, valid UTF-8 and already filtered by per-token hooks.
    case text(String)
    /// The next piece of a thinking model's reasoning (its `<think>` block, tags left out),
    /// before the answer's text; per-token hooks and stop strings do not see it.
    case reasoning(String)
    /// The log-probabilities of the tokens whose text the next ``text(_:)`` holds (the first of
    /// it, when a per-token hook changed it), for a reply that asks for them
    /// (``GenerationParameters/logprobs``). A token whose text a stop string ends is among them;
    /// the model's end-of-generation token, when it ends the reply, comes last, after the text
    /// (its own text is not the reply's).
    case logprobs([TokenLogprob])
    /// The prompt's tokens scored, before the reply's first token, for a reply that asks for them
    /// (``GenerationParameters/scoresPrompt``).
    case promptLogprobs(PromptLogprobs)
    /// A hook failed; it has been disabled for the rest of the session and the reply goes on.
    case hookFailure(HookFailure)
    /// A plugin's `should_stop` took the end of the reply back (``Rewind``), before that text
    /// was shown; the reply goes on from there.
    case rewound(TakenBack)
    /// More of the reply's tool calls as the model writes them, from the format's marker on (they
    /// are never shown as text): for a server that streams a call's input while it is generated
    /// (TideFormat's `ToolCallStream` reads them). The calls themselves come whole, in the summary
    /// or as ``toolCall(_:)``.
    case toolCallText(String)
    /// The model called a tool. A round's calls come first, then their results (``toolResult(_:)``)
    /// in the same order; then the model goes on.
    case toolCall(ToolCall)
    /// A tool call's result, as the model is told it.
    case toolResult(ToolResult)
    /// The reply ended. Always the last event of a stream that did not throw.
    case finished(ReplySummary)
}

/// What a rewind took back (``ReplyEvent/rewound(_:)``).
public struct TakenBack: Sendable, Hashable {
    /// The hook that asked for it.
    public var hook: String
    /// The text taken back, as the model had written it.
    public var text: String
    /// The tokens taken back.
    public var tokens: Int

    /// What `hook` took back: `text`, `tokens` tokens.
    public init(hook: String, text: String, tokens: Int) {
        self.hook = hook
        self.text = text
        self.tokens = tokens
    }
}

/// How a reply ended, and what it was.
public struct ReplySummary: Sendable, Hashable {
    /// Why the reply ended.
    public var stopReason: StopReason
    /// Token counts and timings.
    public var statistics: GenerationStatistics
    /// The text as the model produced it, before per-token hooks (stop strings removed).
    public var rawText: String
    /// The text as it was shown, after per-token hooks.
    public var text: String
    /// The text stored in the history (the shown text unless a post-reply hook rewrote it).
    public var storedText: String
    /// The format the reply was generated under (after `on_prompt` hooks), if any; `nil` too for
    /// a reply a hook gave in the model's place.
    public var format: ReplyFormat?
    /// How far the recorded reply the reply was asked to reproduce held (teacher forcing);
    /// `nil` when it was given none, or a hook answered in the model's place.
    public var teacherForcing: TeacherForcing?
    /// The tools the reply called (its text then is what came before the calls); empty for none.
    public var toolCalls: [ToolCall] = []
    /// Why the reply's tool calls could not be read (cut short by `max-tokens`, not JSON); `nil`
    /// when there were none or they were read.
    public var toolCallProblem: String?
    /// A thinking model's reasoning, tags and the line breaks around it left out; empty for none.
    public var reasoning = ""
    /// The log-probabilities of the reply's shown tokens, in order, and of the end-of-generation
    /// token that ended it (those of ``ReplyEvent/logprobs(_:)``); empty unless the reply asked for them.
    public var logprobs: [TokenLogprob] = []
    /// The prompt's tokens scored, when the reply asked for them (``GenerationParameters/scoresPrompt``).
    public var promptLogprobs: PromptLogprobs?

    /// A summary (the engine makes them; a log or a test may too).
    public init(stopReason: StopReason, statistics: GenerationStatistics, rawText: String, text: String, storedText: String,
                format: ReplyFormat? = nil, teacherForcing: TeacherForcing? = nil) {
        self.stopReason = stopReason
        self.statistics = statistics
        self.rawText = rawText
        self.text = text
        self.storedText = storedText
        self.format = format
        self.teacherForcing = teacherForcing
    }
}
