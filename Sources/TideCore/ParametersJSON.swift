/// Generation parameters as JSON shows them, under the names of their options (`top_k`): in
/// `--json` output and in the conversation log, which reads them back.
public struct ParametersJSON: Codable, Sendable, Hashable {
    public var temperature: Double
    public var top_k: Int
    public var top_p: Double
    public var min_p: Double
    public var repeat_penalty: Double
    public var repeat_last_n: Int
    public var seed: UInt32?
    public var max_tokens: Int
    public var stop: [String]
    public var max_rewinds: Int
    /// The reply format (`json`, a schema, a grammar), as `/show` describes it.
    public var format: String?
    /// `true` when the prompt was the messages as plain text (``GenerationParameters/rawPrompt``);
    /// absent otherwise.
    public var raw_prompt: Bool?
    /// Whether the model could call tools (`auto`, `none`, `required` or a tool's name); absent
    /// in logs written before tools.
    public var tool_choice: String?
    /// The most rounds of tool calls a turn could make; absent in logs written before tools.
    public var max_tool_rounds: Int?
    /// Whether one reply could call several tools; absent in logs written before tools.
    public var parallel_tool_calls: Bool?
    /// `nil` for no limit.
    public var reasoning_budget: Int?

    /// The JSON of `parameters`.
    public init(_ parameters: GenerationParameters) {
        temperature = parameters.temperature
        top_k = parameters.topK
        top_p = parameters.topP
        min_p = parameters.minP
        repeat_penalty = parameters.repeatPenalty
        repeat_last_n = parameters.repeatLastN
        seed = parameters.seed
        max_tokens = parameters.maxTokens
        stop = parameters.stop
        max_rewinds = parameters.maxRewinds
        format = parameters.format?.description
        raw_prompt = parameters.rawPrompt ? true : nil
        tool_choice = parameters.toolChoice.description
        max_tool_rounds = parameters.maxToolRounds
        parallel_tool_calls = parameters.parallelToolCalls
        reasoning_budget = parameters.reasoningBudget
    }

    /// The parameters these name, without the reply format (which the JSON only describes).
    public var parameters: GenerationParameters {
        var parameters = GenerationParameters()
        parameters.temperature = temperature
        parameters.topK = top_k
        parameters.topP = top_p
        parameters.minP = min_p
        parameters.repeatPenalty = repeat_penalty
        parameters.repeatLastN = repeat_last_n
        parameters.seed = seed
        parameters.maxTokens = max_tokens
        parameters.stop = stop
        parameters.maxRewinds = max_rewinds
        parameters.rawPrompt = raw_prompt ?? false
        if let tool_choice { parameters.toolChoice = ToolChoice(tool_choice) }
        if let max_tool_rounds { parameters.maxToolRounds = max_tool_rounds }
        if let parallel_tool_calls { parameters.parallelToolCalls = parallel_tool_calls }
        parameters.reasoningBudget = reasoning_budget
        return parameters
    }
}
