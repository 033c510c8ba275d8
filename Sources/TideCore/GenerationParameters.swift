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
    /// How many recent tokens the repetition, presence and frequency penalties look at.
    public var repeatLastN: Int = 64
    /// Subtracted once from the score of every token seen in the last `repeatLastN` (OpenAI's
    /// `presence_penalty`, over llama.cpp's window); 0 disables it.
    public var presencePenalty: Double = 0
    /// Subtracted from a token's score once per time it was seen in the last `repeatLastN`
    /// (OpenAI's `frequency_penalty`); 0 disables it.
    public var frequencyPenalty: Double = 0
    /// Biases added to tokens' scores before any other sampler (``LogitBias``).
    public var logitBias: [LogitBias] = []
    /// DRY ("don't repeat yourself"): how strongly a token that would extend a repeated sequence
    /// is penalised; 0 disables it.
    public var dryMultiplier: Double = 0
    /// DRY: the penalty grows as `dryBase` to the power of the repeat's length past `dryAllowedLength`.
    public var dryBase: Double = 1.75
    /// DRY: repeats up to this many tokens long are not penalised.
    public var dryAllowedLength: Int = 2
    /// DRY: how many recent tokens are scanned for repeats (0: none).
    public var dryPenaltyLastN: Int = 64
    /// DRY: texts that end a repeated sequence.
    public var drySequenceBreakers = ["\n", ":", "\"", "*"]
    /// XTC ("exclude top choices"): the chance, per token, that the most likely tokens above
    /// `xtcThreshold` but the last of them are removed; 0 disables it.
    public var xtcProbability: Double = 0
    /// XTC: the probability a token needs to be removed (above 0.5, nothing is).
    public var xtcThreshold: Double = 0.1
    /// Locally typical sampling: keep the tokens closest to the expected surprise up to this
    /// probability mass; 1 disables it.
    public var typicalP: Double = 1
    /// Top-n-σ: keep the tokens whose score is within this many standard deviations of the best;
    /// 0 or less disables it.
    public var topNSigma: Double = -1
    /// Mirostat: 0 off, 1 Mirostat, 2 Mirostat 2.0, which then replaces every sampler but the
    /// biases and the temperature.
    public var mirostat: Int = 0
    /// Mirostat: the target surprise (τ).
    public var mirostatTau: Double = 5
    /// Mirostat: the learning rate (η).
    public var mirostatEta: Double = 0.1
    /// Seed of the random sampler; `nil` draws a fresh one for every reply.
    public var seed: UInt32?
    /// The most tokens a reply may have; 0 generates nothing (the prompt is read only to score
    /// it, with ``scoresPrompt``).
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
    /// Whether the prompt's tokens are scored too (``ReplySummary/promptLogprobs``), each with
    /// ``logprobs`` alternatives: what `echo` with `logprobs` asks of `/v1/completions`.
    public var scoresPrompt = false
    /// Whether a prompt or reply that outgrows the context is held by shifting the backend's
    /// cache (``ContextOverflowPolicy/shift``): set by the reply loop from its session's policy.
    public var shiftsContext = false
    /// Whether the backend drafts tokens from the context and checks them in one decode
    /// (``DraftMode/lookup``), which changes how fast a reply comes, not what it says: `lookup`
    /// drafts only where the backend's batches score exactly as single tokens. ``DraftMode/always``
    /// drafts where they do not too (a GPU), each drafted position's token the sampler's choice
    /// from the batch's scores, so such a reply may differ at a near-tie the batch reorders.
    public var draft = DraftMode.lookup
    /// How far, in logits, a recorded token's score may fall behind the sampler's choice and the
    /// token still be confirmed by teacher forcing (``Tolerance``); 0 is the exact rule.
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
    /// The most bytes of a tool's result the model reads (a Lua tool's or an MCP server's); a
    /// longer one is cut, and says so. It is cut further to what the context has room for.
    public var maxToolResult = 16_384

    /// Whether each token of the reply comes with its log-probability (``TokenLogprob``), and with
    /// how many of the likeliest tokens at its position: `nil` for none, 0 for the token's alone.
    public var logprobs: Int?

    /// The most tokens a thinking model may reason for before its reasoning is closed for it
    /// (the close tag forced) and it answers; `nil` for no limit but `max-tokens`.
    public var reasoningBudget: Int?

    /// Whether the model is offered tools in this reply.
    public var offersTools: Bool { !tools.isEmpty && toolChoice != .none }

    /// The most tool rounds a turn may be allowed.
    public static let maximumToolRounds = 1000
    /// The most bytes ``maxToolResult`` may allow.
    public static let maximumToolResult = 16 << 20

    /// Parameters with every default.
    public init() {}

    /// Whether the reply takes the likeliest token at each step (temperature 0) rather than a
    /// random draw: the one place this is decided.
    public var isGreedy: Bool { temperature == 0 }

    /// Whether XTC removes the likeliest tokens, at random: a threshold above 0.5 leaves at most
    /// one token above it, which XTC keeps.
    public var removesTopTokens: Bool { xtcProbability > 0 && xtcThreshold <= 0.5 }

    /// Whether every run samples the same reply from the same scores: greedy decoding (without
    /// XTC's random removals), or a random draw from a fixed seed.
    public var isReproducible: Bool { (isGreedy && !removesTopTokens) || seed != nil }

    /// The largest token count a parameter may take: llama.cpp counts tokens in 32-bit integers.
    public static let maximumTokenCount = Int(Int32.max)
    /// The most recent tokens the repetition penalty may look at (llama.cpp keeps them in a ring
    /// buffer of this size).
    public static let maximumRepeatLastN = 1 << 20

    /// The most alternatives a token's log-probability may come with (OpenAI's `top_logprobs` limit).
    public static let maximumLogprobs = 20

    /// The most rewinds one reply may be allowed.
    public static let maximumRewinds = 100_000

    /// The most stop strings a reply may have (OpenAI allows 4; clients that complete code send
    /// a dozen): each is looked for after every token.
    public static let maximumStops = 64
    /// The most bytes (UTF-8) of one stop string.
    public static let maximumStopBytes = 1024
    /// The most DRY sequence breakers: llama.cpp reads the whole vocabulary for each one when
    /// the sampler is made.
    public static let maximumSequenceBreakers = 64
    /// The most bytes (UTF-8) of one DRY sequence breaker: llama.cpp cuts a longer one to this.
    public static let maximumSequenceBreakerBytes = 40

    /// Checks every value, naming the first one that is out of range. Every value that passes
    /// converts to what llama.cpp takes (32-bit integers, finite floats) without trapping.
    public func validate() throws(InvalidParameterError) {
        for declaration in Self.declarations {
            var probe = self
            try declaration.set(declaration.value(in: self), in: &probe)
        }
        if !(0...Self.maximumRewinds).contains(maxRewinds) {
            throw InvalidParameterError(name: "max-rewinds", value: "\(maxRewinds)", requirement: "a whole number from 0 to \(Self.maximumRewinds)")
        }
        if !Tolerance.range.contains(tolerance) {
            throw InvalidParameterError(name: "tolerance", value: "\(tolerance)", requirement: Tolerance.requirement)
        }
        if case .named(let name) = toolChoice, !tools.isEmpty, !tools.contains(where: { $0.name == name }) {
            throw InvalidParameterError(name: "tool-choice", value: name, requirement:
                "auto, none, required or the name of a tool offered (\(tools.map(\.name).joined(separator: ", ")))")
        }
    }
}

extension GenerationParameters {
    /// Every generation parameter, declared once, in the order surfaces list them (``ParameterDeclaration``).
    /// Adding one means a property above, its line here, and the code that acts on it.
    public static let declarations: [ParameterDeclaration] = [
        ParameterDeclaration("temperature", \.temperature, .number(atLeast: 0, "≥ 0 (0 picks the likeliest token), at most 3.4e+38"),
                             "Sampling temperature; 0 is greedy", request: .sent),
        ParameterDeclaration("top-k", \.topK, .whole(0...maximumTokenCount), "Sample among the k most likely tokens; 0 disables",
                             request: .sent),
        ParameterDeclaration("top-p", \.topP, .number(Double.leastNonzeroMagnitude...1, "a number in (0, 1]"),
                             "Nucleus sampling: the smallest set of tokens whose probability reaches p; 1 disables", request: .sent),
        ParameterDeclaration("min-p", \.minP, .number(0...1, "a number in [0, 1]"),
                             "Drop tokens less likely than p times the likeliest; 0 disables", request: .sent),
        ParameterDeclaration("repeat-penalty", \.repeatPenalty, .number(Double.leastNonzeroMagnitude...Double(Float.greatestFiniteMagnitude),
                                                                         "a number above 0, at most 3.4e+38"),
                             "Divide the scores of recently seen tokens by this; 1 disables"),
        ParameterDeclaration("repeat-last-n", \.repeatLastN, .whole(0...maximumRepeatLastN),
                             "How many recent tokens the repetition, presence and frequency penalties look at"),
        ParameterDeclaration("presence-penalty", \.presencePenalty, .number(-2...2, "a number from -2 to 2"),
                             "Subtract this from the score of every recently seen token; 0 disables"),
        ParameterDeclaration("frequency-penalty", \.frequencyPenalty, .number(-2...2, "a number from -2 to 2"),
                             "Subtract this from a token's score per time it was recently seen; 0 disables"),
        ParameterDeclaration("logit-bias", \.logitBias, .logitBias,
                             "Add a bias to a token's score, or to each token of a text (repeatable: ID=BIAS or TEXT=BIAS; -inf bans)"),
        ParameterDeclaration("dry-multiplier", \.dryMultiplier, .number(atLeast: 0, "a number ≥ 0, at most 3.4e+38"),
                             "DRY: penalise tokens that extend a repeated sequence this strongly; 0 disables"),
        ParameterDeclaration("dry-base", \.dryBase, .number(atLeast: 1, "a number ≥ 1, at most 3.4e+38"),
                             "DRY: the penalty grows as this to the power of the repeat's length past the allowed length"),
        ParameterDeclaration("dry-allowed-length", \.dryAllowedLength, .whole(0...maximumTokenCount),
                             "DRY: repeats up to this many tokens long are not penalised"),
        ParameterDeclaration("dry-penalty-last-n", \.dryPenaltyLastN, .whole(0...maximumRepeatLastN),
                             "DRY: how many recent tokens are scanned for repeats"),
        ParameterDeclaration("dry-sequence-breakers", \.drySequenceBreakers,
                             .texts(nonEmpty: true, atMost: maximumSequenceBreakers, ofAtMostBytes: maximumSequenceBreakerBytes),
                             "DRY: a text that ends a repeated sequence (repeatable)"),
        ParameterDeclaration("xtc-probability", \.xtcProbability, .number(0...1, "a number in [0, 1]"),
                             "XTC: the chance per token of removing the likeliest tokens but the last above the threshold; 0 disables"),
        ParameterDeclaration("xtc-threshold", \.xtcThreshold, .number(0...1, "a number in [0, 1]"),
                             "XTC: the probability a token needs to be removed (above 0.5, none is)"),
        ParameterDeclaration("typical-p", \.typicalP, .number(Double.leastNonzeroMagnitude...1, "a number in (0, 1]"),
                             "Locally typical sampling: keep the tokens nearest the expected surprise up to this mass; 1 disables"),
        ParameterDeclaration("top-n-sigma", \.topNSigma, .number(-Double(Float.greatestFiniteMagnitude)...Double(Float.greatestFiniteMagnitude),
                                                                  "a number (0 or less disables), at most 3.4e+38 either way"),
                             "Keep tokens within this many standard deviations of the best score; 0 or less disables"),
        ParameterDeclaration("mirostat", \.mirostat, .whole(0...2, "0, 1 or 2"),
                             "Mirostat in place of the other samplers: 1 or 2 (Mirostat 2.0); 0 disables"),
        ParameterDeclaration("mirostat-tau", \.mirostatTau, .number(atLeast: 0, "a number ≥ 0, at most 3.4e+38"),
                             "Mirostat: the target surprise (τ)"),
        ParameterDeclaration("mirostat-eta", \.mirostatEta, .number(atLeast: 0, "a number ≥ 0, at most 3.4e+38"),
                             "Mirostat: the learning rate (η)"),
        ParameterDeclaration("seed", \.seed, .seed, "Random seed, for reproducible sampling; random draws one per reply"),
        ParameterDeclaration("max-tokens", \.maxTokens, .whole(0...maximumTokenCount),
                             "The most tokens in a reply (0: none)",
                             aliases: ["max_completion_tokens", "n_predict"], request: .sent),
        ParameterDeclaration("stop", \.stop, .texts(atMost: maximumStops, ofAtMostBytes: maximumStopBytes),
                             "A string that ends the reply (repeatable); it is never shown"),
        ParameterDeclaration("tool-choice", \.toolChoice, .toolChoice,
                             "Whether the model may call tools (auto), must call one (required, or a tool's name) or is not offered them (none)",
                             request: .ownFields),
        ParameterDeclaration("max-tool-rounds", \.maxToolRounds, .whole(0...maximumToolRounds),
                             "The most rounds of tool calls in one turn; past them the model must answer", request: .local),
        ParameterDeclaration("max-tool-result", \.maxToolResult, .whole(256...maximumToolResult),
                             "The most bytes of a tool's result the model reads; a longer one is cut, and says so", request: .local),
        ParameterDeclaration("parallel-tool-calls", \.parallelToolCalls, .flag, "Whether one reply may call several tools at once",
                             request: .ownFields),
        ParameterDeclaration("logprobs", \.logprobs,
                             .whole(0...maximumLogprobs, orNone: -1, "a whole number from 0 to \(maximumLogprobs), or -1 for none"),
                             "Give each reply token's log-probability, with this many of the likeliest tokens at its position (0: the token's alone; -1: none)",
                             request: .ownFields),
        ParameterDeclaration("reasoning-budget", \.reasoningBudget,
                             .whole(0...maximumTokenCount, orNone: -1, "a whole number from 0 to \(maximumTokenCount), or -1 for no limit"),
                             "The most tokens a thinking model (<think>…</think>) may reason for; then its reasoning is closed for it and it answers (-1: no limit)",
                             request: .local),
    ]

    /// The declaration named `name` (`top-k`); `nil` for none.
    public static func declaration(named name: String) -> ParameterDeclaration? {
        declarations.first { $0.name == name }
    }

    /// The declaration that a request's field `field` sets (`top_k`, or an alias); `nil` for none.
    public static func declaration(field: String) -> ParameterDeclaration? {
        declarations.first { $0.field == field || $0.aliases.contains(field) }
    }
}

/// A generation parameter outside its allowed range, or a name that is not a parameter.
public struct InvalidParameterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The parameter's name as users spell it (`top-p`).
    public let name: String
    /// The value that was given.
    public let value: String
    /// What the value must be; `nil` when `name` is not a generation parameter.
    public let requirement: String?

    /// A value of `name` that is not `requirement`.
    public init(name: String, value: String, requirement: String) {
        self.name = name
        self.value = value
        self.requirement = requirement
    }

    /// `name`, which is not a generation parameter.
    public init(unknown name: String) {
        self.name = name
        value = ""
        requirement = nil
    }

    public var description: String {
        guard let requirement else {
            return "'\(name)' is not a generation parameter; one of: " + ParameterSetting.names.joined(separator: ", ")
        }
        return "\(name) must be \(requirement), not \(value)"
    }

    /// The name as JSON, plugins and requests spell it: `top_p`.
    public var field: String { ParameterDeclaration.field(of: name) }

    /// What follows the name in ``description``: "must be a number in (0, 1], not 2".
    public var rule: String {
        guard let requirement else { return String(description.drop { $0 != " " }.dropFirst()) }
        return "must be \(requirement), not \(value)"
    }
}
