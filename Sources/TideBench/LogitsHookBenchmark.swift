import TideCore
import TideLlama

/// What one logits-hook call costs: a hook that asks for the best 40 candidates at every token,
/// on each model given (the vocabulary size is what the partial selection scans), as time per
/// call and as a share of the time per token with the hook in place.
struct LogitsHookBenchmark {
    let models: [LlamaModel]
    /// A hook with an `on_logits` that calls `view:top(40)`.
    let hook: any ChatHook
    let tokens: Int
    let rounds: Int
    let threads: Int?

    struct Result: Sendable {
        var model: String
        var vocabularySize: Int
        /// Median time of one call, in microseconds.
        var microsecondsPerCall: Double
        /// Median share of the time per token spent in the call.
        var shareOfTokenTime: Double
    }

    func run() async throws -> [Result] {
        var results: [Result] = []
        for model in models {
            let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 1024, threads: threads),
                                           template: .raw)
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = tokens
            var costs: [Double] = []
            var shares: [Double] = []
            for _ in 0..<rounds {
                backend.clearCache()
                let session = ChatSession(backend: backend, parameters: parameters, hooks: [hook])
                guard let statistics = try await session.reply(to: "Once upon a time").collect().summary?.statistics,
                      statistics.generatedTokens > 1
                else { continue }
                let perCall = statistics.hookDuration.seconds / Double(statistics.generatedTokens)
                let perToken = statistics.decodeDuration.seconds / Double(statistics.generatedTokens - 1)
                costs.append(perCall * 1e6)
                shares.append(perToken > 0 ? perCall / perToken : 0)
            }
            backend.clearCache()
            results.append(Result(model: model.facts.name, vocabularySize: model.facts.vocabularySize,
                                  microsecondsPerCall: median(costs), shareOfTokenTime: median(shares)))
        }
        return results
    }
}
