/// Figures about one reply.
public struct GenerationStatistics: Sendable, Hashable, Codable {
    /// Tokens in the rendered prompt.
    public var promptTokens = 0
    /// Prompt tokens already in the backend's cache from earlier turns, and so not evaluated again.
    public var reusedPromptTokens = 0
    /// Tokens the model generated for this reply (those taken back by rewinds not included).
    public var generatedTokens = 0
    /// Of those, the tokens a thinking model spent reasoning (its `<think>` block, tags included).
    public var reasoningTokens = 0
    /// How many times a plugin took back the end of the reply.
    public var rewinds = 0
    /// Tokens generated and then taken back by rewinds.
    public var discardedTokens = 0
    /// From the request to the first generated token (prompt evaluation included).
    public var timeToFirstToken: Duration?
    /// From the first generated token to the end of the reply.
    public var decodeDuration: Duration = .zero
    /// Time spent inside hooks, summed over all calls.
    public var hookDuration: Duration = .zero
    /// What each plugin's hooks cost over the turn, in the order of their first calls; `nil`
    /// when no hook was called.
    public var hookCosts: [HookCost]?
    /// How drafted tokens fared (``DraftMode/lookup``); `nil` when the reply drafted none.
    public var drafting: DraftStatistics?
    /// How the reply's format was steered to finish within `max-tokens`; `nil` when it was not.
    public var steering: BudgetSteering?
    /// The tool calls of the turn, with their results and times, in order.
    public var toolResults: [ToolResult] = []
    /// Rounds of tool calls the turn made before its answer.
    public var toolRounds = 0
    /// Set when the reply was given again from a ``ReplyCache`` rather than generated (for a
    /// turn with tool rounds, its answer's); `nil` when it was generated.
    public var cached: ReplyCacheHit?
    /// Whether the reply is the same whenever its prompt, parameters and plugins are: `true` for
    /// one greedy or sampled with a fixed seed that ended by itself (every round of a turn with
    /// tool rounds), or answered by a plugin; `false` for one sampled without a seed, cancelled,
    /// or with a tool call that could not be read; `nil` when no reply cache was asked for. (A
    /// determined reply whose plugins read the model's scores is not kept in the cache, which
    /// cannot show them scores again; its case may be.)
    public var determined: Bool?

    /// Creates empty statistics.
    public init() {}

    /// The reply's time: from the request to its last token.
    public var replyDuration: Duration { (timeToFirstToken ?? .zero) + decodeDuration }

    /// Prompt tokens that had to be evaluated.
    public var evaluatedPromptTokens: Int { promptTokens - reusedPromptTokens }

    /// Decoding speed after the first token: tokens generated after it per second; `nil` for a
    /// reply given from the cache, which was not decoded.
    public var tokensPerSecond: Double? {
        let seconds = decodeDuration.seconds
        guard generatedTokens > 1, seconds > 0, cached == nil else { return nil }
        return Double(generatedTokens - 1) / seconds
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
