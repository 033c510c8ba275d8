import TideCore
import TideFormat
import TideLlama

/// What a reply format costs: the decode rate of a greedy reply under a JSON schema against free
/// text of the same length (the rate falls as the context grows, so lengths must match), with the
/// grammar checking the sampled token first (Tide's way) and constraining every candidate at every
/// token (llama.cpp's grammar sampler over the whole vocabulary, the alternative). Sides alternate
/// every round on one context.
struct FormatBenchmark {
    let model: LlamaModel
    let tokens: Int
    let rounds: Int
    let threads: Int?

    /// A list of four cities, each with a paragraph: long enough to measure, with structure and free text.
    static let schema = """
        {"type": "object", "properties": {"cities": {"type": "array", "minItems": 4, "maxItems": 4, "items": {
          "type": "object", "properties": {"name": {"type": "string", "maxLength": 40}, "country": {"type": "string", "maxLength": 40},
          "description": {"type": "string", "maxLength": 300}}, "required": ["name", "country", "description"],
          "additionalProperties": false}}}, "required": ["cities"], "additionalProperties": false}
        """
    static let prompt = "Describe four cities of Europe: for each, its name, its country and a paragraph about it."
    /// Free text that runs at least as long as the reply under the schema.
    static let freePrompt = "Write a long essay about the history of the cities of Europe, with many details."

    struct Result: Sendable {
        var plainTokensPerSecond: Double
        /// Median paired ratios of the decode rate under the schema to that without.
        var schemaRatio: Double
        var everyTokenRatio: Double
        /// Median extra time per token under the schema, in milliseconds, both ways.
        var schemaMilliseconds: Double
        var everyTokenMilliseconds: Double
        /// Tokens of the reply under the schema (the free text's length too), whether it
        /// validated, and whether the free text ran that long.
        var schemaTokens: Int
        var valid: Bool
        var sameLength: Bool
    }

    func run() async throws -> Result {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        let format = try ReplyFormat.jsonSchema(Self.schema)
        let schema = try JSONSchema(JSONValue(parsing: Self.schema))
        func reply(_ prompt: String, format: ReplyFormat?, maxTokens: Int, everyToken: Bool = false) async throws -> CollectedReply {
            backend.clearCache()
            backend.constrainsEveryToken = everyToken
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = maxTokens
            parameters.format = format
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
            return try await session.reply(to: prompt).collect()
        }
        // Greedy, so every reply under the schema is this one.
        let constrained = try await reply(Self.prompt, format: format, maxTokens: tokens)
        let length = constrained.summary?.statistics.generatedTokens ?? 0
        let valid = constrained.summary?.stopReason == .endOfGeneration
            && (try? JSONValue(parsing: constrained.text)).map { schema.violations(of: $0).isEmpty } == true
        var plainRates: [Double] = [], ratios: [Double] = [], everyRatios: [Double] = []
        var costs: [Double] = [], everyCosts: [Double] = []
        var sameLength = true
        for round in 0..<rounds {
            var rates: [String: Double] = [:]
            for side in round % 2 == 0 ? ["plain", "schema", "every"] : ["every", "schema", "plain"] {
                let collected = side == "plain"
                    ? try await reply(Self.freePrompt, format: nil, maxTokens: max(length, 1))
                    : try await reply(Self.prompt, format: format, maxTokens: tokens, everyToken: side == "every")
                let statistics = collected.summary?.statistics ?? GenerationStatistics()
                if side == "plain" { sameLength = sameLength && statistics.generatedTokens == length }
                rates[side] = statistics.tokensPerSecond ?? 0
            }
            let plain = rates["plain"] ?? 0, schemaRate = rates["schema"] ?? 0, every = rates["every"] ?? 0
            plainRates.append(plain)
            guard plain > 0, schemaRate > 0, every > 0 else { continue }
            ratios.append(schemaRate / plain)
            everyRatios.append(every / plain)
            costs.append((1 / schemaRate - 1 / plain) * 1000)
            everyCosts.append((1 / every - 1 / plain) * 1000)
        }
        backend.constrainsEveryToken = false
        backend.clearCache()
        return Result(plainTokensPerSecond: median(plainRates), schemaRatio: median(ratios), everyTokenRatio: median(everyRatios),
                      schemaMilliseconds: median(costs), everyTokenMilliseconds: median(everyCosts), schemaTokens: length,
                      valid: valid, sameLength: sameLength)
    }
}
