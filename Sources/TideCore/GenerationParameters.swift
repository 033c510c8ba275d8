/// How a reply is sampled and when it must end.
///
/// The defaults follow common on-device chat apps: temperature 0.6, up to 1024 tokens,
/// top-k 40, top-p 0.95, min-p 0.05 and no repetition penalty. A temperature of 0 means
/// greedy decoding (always the most likely token), which is deterministic.
public struct GenerationParameters: Sendable, Hashable, Codable {
    /// Softmax temperature; 0 selects greedy decoding.
    public var temperature: Double = 0.6
    /// Keep only the `topK` most likely tokens before sampling; 0 disables the filter.
    public var topK: Int = 40
    /// Nucleus sampling: keep the smallest set of tokens whose probability reaches `topP`; 1 disables it.
    public var topP: Double = 0.95
    /// Drop tokens whose probability is below `minP` times that of the most likely one; 0 disables it.
    public var minP: Double = 0.05
    /// Penalty applied to tokens seen in the last `repeatLastN` tokens; 1 disables it.
    public var repeatPenalty: Double = 1.0
    /// How many recent tokens the repetition penalty looks at.
    public var repeatLastN: Int = 64
    /// Seed of the random sampler; `nil` draws a fresh one for every reply.
    public var seed: UInt32?
    /// The most tokens a reply may have.
    public var maxTokens: Int = 1024
    /// Strings that end the reply when generated; they are never shown.
    public var stop: [String] = []
    /// The most times plugins may take back the end of one reply; past it the reply ends
    /// (``StopReason/rewindLimit``).
    public var maxRewinds: Int = 32
    /// The shape the reply must take (JSON, a JSON schema, a grammar); `nil` for free text.
    public var format: ReplyFormat?
    /// Whether the messages become the prompt as plain text, whatever the backend's chat template:
    /// their texts, separated by blank lines, which the model continues (the `raw` template, for
    /// one reply). Completion requests (`/v1/completions`) set it.
    public var rawPrompt = false
    /// Whether the backend drafts tokens from the context and checks them in one decode
    /// (``DraftMode/lookup``), which changes how fast a reply comes, not what it says, where the
    /// backend's batches score exactly as single tokens; where they do not, a drafted token is
    /// accepted within ``tolerance``, so a reply may differ at a near-tie.
    public var draft = DraftMode.lookup
    /// How far, in logits, a recorded token's score may fall behind the sampler's choice and the
    /// token still be confirmed by teacher forcing (``Tolerance``); 0 is the exact rule. On a
    /// backend whose batched decodes are not bit-exact, drafted tokens are checked with it too.
    public var tolerance = Tolerance.standard

    /// The tools offered to the model (``ToolDefinition``); empty for none.
    public var tools: [ToolDefinition] = []
    /// The hooks' tools offered, by name (`--tool`, the chat's `/tools`); `nil` for every one of
    /// them (an empty list offers none).
    public var toolNames: [String]?
    /// Whether the model may (`auto`), must (`required`, a tool's name) or must not (`none`) call them.
    public var toolChoice = ToolChoice.auto
    /// Whether one reply may call several tools.
    public var parallelToolCalls = true
    /// The most rounds of calls one turn may make (each round: the calls, their results, the
    /// model going on); past them the model must answer.
    public var maxToolRounds = 8

    /// The most tokens a thinking model may reason for before its reasoning is closed for it
    /// (the close tag forced) and it answers; `nil` for no limit but `max-tokens`.
    public var reasoningBudget: Int?

    /// Whether the model is offered tools in this reply.
    public var offersTools: Bool { !tools.isEmpty && toolChoice != .none }

    /// The most tool rounds a turn may be allowed.
    public static let maximumToolRounds = 1000

    /// Parameters with every default.
    public init() {}

    /// Whether every run samples the same reply from the same scores: greedy decoding, or a
    /// random draw from a fixed seed.
    public var isReproducible: Bool { temperature == 0 || seed != nil }

    /// The largest token count a parameter may take: llama.cpp counts tokens in 32-bit integers.
    public static let maximumTokenCount = Int(Int32.max)
    /// The most recent tokens the repetition penalty may look at (llama.cpp keeps them in a ring
    /// buffer of this size).
    public static let maximumRepeatLastN = 1 << 20

    /// The most rewinds one reply may be allowed.
    public static let maximumRewinds = 100_000

    /// Checks every value, naming the first one that is out of range. Every value that passes
    /// converts to what llama.cpp takes (32-bit integers, finite floats) without trapping.
    public func validate() throws(InvalidParameterError) {
        func require(_ condition: Bool, _ name: String, _ value: any CustomStringConvertible, _ rule: String)
            throws(InvalidParameterError)
        {
            if !condition { throw InvalidParameterError(name: name, value: "\(value)", requirement: rule) }
        }
        let floatRange = 0...Double(Float.greatestFiniteMagnitude)
        try require(temperature >= 0, "temperature", temperature, "≥ 0 (0 picks the likeliest token)")
        try require(floatRange.contains(temperature), "temperature", temperature, "at most 3.4e+38")
        try require((0...Self.maximumTokenCount).contains(topK), "top-k", topK,
                    "a whole number from 0 to \(Self.maximumTokenCount)")
        try require(topP > 0 && topP <= 1, "top-p", topP, "a number in (0, 1]")
        try require(minP >= 0 && minP <= 1, "min-p", minP, "a number in [0, 1]")
        try require(floatRange.contains(repeatPenalty) && repeatPenalty > 0, "repeat-penalty", repeatPenalty,
                    "a number above 0, at most 3.4e+38")
        try require((0...Self.maximumRepeatLastN).contains(repeatLastN), "repeat-last-n", repeatLastN,
                    "a whole number from 0 to \(Self.maximumRepeatLastN)")
        try require((1...Self.maximumTokenCount).contains(maxTokens), "max-tokens", maxTokens,
                    "a whole number from 1 to \(Self.maximumTokenCount)")
        try require(!stop.contains(""), "stop", "\"\"", "a non-empty string")
        try require(Tolerance.range.contains(tolerance), "tolerance", tolerance, Tolerance.requirement)
        try require((0...Self.maximumRewinds).contains(maxRewinds), "max-rewinds", maxRewinds,
                    "a whole number from 0 to \(Self.maximumRewinds)")
        try require((0...Self.maximumToolRounds).contains(maxToolRounds), "max-tool-rounds", maxToolRounds,
                    "a whole number from 0 to \(Self.maximumToolRounds)")
        if let reasoningBudget {
            try require((0...Self.maximumTokenCount).contains(reasoningBudget), "reasoning-budget", reasoningBudget,
                        "a whole number from 0 to \(Self.maximumTokenCount), or -1 for no limit")
        }
        if case .named(let name) = toolChoice, !tools.isEmpty {
            try require(tools.contains { $0.name == name }, "tool-choice", name,
                        "auto, none, required or the name of a tool offered (\(tools.map(\.name).joined(separator: ", ")))")
        }
    }
}

/// A generation parameter outside its allowed range.
public struct InvalidParameterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The parameter's name as users spell it (`top-p`).
    public let name: String
    /// The value that was given.
    public let value: String
    /// What the value must be.
    public let requirement: String

    public var description: String { "\(name) must be \(requirement), not \(value)" }
}
