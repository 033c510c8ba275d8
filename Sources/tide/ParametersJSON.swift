import TideCore

/// Generation parameters as `--json` output shows them, under the names of their options.
struct ParametersJSON: Encodable {
    var temperature: Double
    var top_k: Int
    var top_p: Double
    var min_p: Double
    var repeat_penalty: Double
    var repeat_last_n: Int
    var seed: UInt32?
    var max_tokens: Int
    var stop: [String]
    var max_rewinds: Int
    /// The reply format (`json`, a schema, a grammar), as `/show` describes it.
    var format: String?

    init(_ parameters: GenerationParameters) {
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
    }
}
