/// One generation parameter, as a script's directive (`@temperature 0`), the REPL's `/set`, a
/// command-line option or a model preset sets it.
public enum ParameterSetting: Sendable, Hashable {
    case temperature(Double)
    case topK(Int)
    case topP(Double)
    case minP(Double)
    case repeatPenalty(Double)
    case repeatLastN(Int)
    /// `@seed N`, or `@seed random` (`nil`).
    case seed(UInt32?)
    case maxTokens(Int)
    /// `@stop "a" "b"`: replaces the stop strings (`@stop` alone clears them).
    case stop([String])
    /// `@tool-choice auto|none|required|NAME`: whether the model may, must or must not call tools.
    case toolChoice(ToolChoice)
    /// `@max-tool-rounds N`: the rounds of tool calls a turn may make before it must answer.
    case maxToolRounds(Int)
    /// `@parallel-tool-calls true|false`: whether one reply may call several tools.
    case parallelToolCalls(Bool)
    /// `@reasoning-budget N`: the tokens a thinking model may reason for before it must answer;
    /// `-1` (`nil`) for no limit.
    case reasoningBudget(Int?)

    /// Sets this parameter in `parameters`.
    public func apply(to parameters: inout GenerationParameters) {
        switch self {
        case .temperature(let value): parameters.temperature = value
        case .topK(let value): parameters.topK = value
        case .topP(let value): parameters.topP = value
        case .minP(let value): parameters.minP = value
        case .repeatPenalty(let value): parameters.repeatPenalty = value
        case .repeatLastN(let value): parameters.repeatLastN = value
        case .seed(let value): parameters.seed = value
        case .maxTokens(let value): parameters.maxTokens = value
        case .stop(let value): parameters.stop = value
        case .toolChoice(let value): parameters.toolChoice = value
        case .maxToolRounds(let value): parameters.maxToolRounds = value
        case .parallelToolCalls(let value): parameters.parallelToolCalls = value
        case .reasoningBudget(let value): parameters.reasoningBudget = value
        }
    }
}

extension ParameterSetting {
    /// The parameter's name, as in ``names``.
    public var name: String {
        switch self {
        case .temperature: "temperature"
        case .topK: "top-k"
        case .topP: "top-p"
        case .minP: "min-p"
        case .repeatPenalty: "repeat-penalty"
        case .repeatLastN: "repeat-last-n"
        case .seed: "seed"
        case .maxTokens: "max-tokens"
        case .stop: "stop"
        case .toolChoice: "tool-choice"
        case .maxToolRounds: "max-tool-rounds"
        case .parallelToolCalls: "parallel-tool-calls"
        case .reasoningBudget: "reasoning-budget"
        }
    }

    /// The parameter names, as directives (`@top-k`) and the REPL's `/set top-k` spell them.
    public static let names = ["temperature", "top-k", "top-p", "min-p", "repeat-penalty", "repeat-last-n", "seed",
                               "max-tokens", "stop", "tool-choice", "max-tool-rounds", "parallel-tool-calls",
                               "reasoning-budget"]

    /// Every parameter of `parameters` as a setting, in the order of ``names``.
    public static func all(of parameters: GenerationParameters) -> [ParameterSetting] {
        [.temperature(parameters.temperature), .topK(parameters.topK), .topP(parameters.topP), .minP(parameters.minP),
         .repeatPenalty(parameters.repeatPenalty), .repeatLastN(parameters.repeatLastN), .seed(parameters.seed),
         .maxTokens(parameters.maxTokens), .stop(parameters.stop), .toolChoice(parameters.toolChoice),
         .maxToolRounds(parameters.maxToolRounds), .parallelToolCalls(parameters.parallelToolCalls),
         .reasoningBudget(parameters.reasoningBudget)]
    }
}
