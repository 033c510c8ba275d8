import TideCore
import TideLlama

/// Decode speed of the full engine (ChatSession, no hooks) against the bare llama.cpp loop, on
/// the same context, thread, prompt and greedy sampler, alternating the two every round.
struct DecodeSpeedBenchmark {
    let model: LlamaModel
    let tokens: Int
    let rounds: Int
    let threads: Int?
    /// Hooks for the third side of the comparison (none: that side is skipped).
    let plugins: [any ChatHook]

    struct Result: Sendable {
        var bareTokensPerSecond: Double
        var engineTokensPerSecond: Double
        var tokensPerRound: Int
        /// The median over rounds of engine speed / bare speed, each pair measured back to back.
        var ratio: Double
        /// The same with the plugins loaded, when there are any.
        var pluginRatio: Double?
        var pluginTokensPerSecond: Double?
        /// Median time per hook call with the plugins, in microseconds.
        var microsecondsPerHookCall: Double?
        var pluginNames: [String]
    }

    /// The free-writing prompt.
    static let prompt = "Write a long story about a lighthouse keeper."

    func run() async throws -> Result {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = tokens
        let messages = [ChatMessage(.system, "You are a helpful assistant."),
                        ChatMessage(.user, Self.prompt)]
        let prompt = try backend.promptTokens(for: messages)
        let bare = BareGreedyLoop(backend: backend)
        var bareRates: [Double] = []
        var engineRates: [Double] = []
        var pluginRates: [Double] = []
        var hookCallCosts: [Double] = []
        var counted = 0
        func engineRun(hooks: [any ChatHook]) async throws -> GenerationStatistics {
            backend.clearCache()
            let session = ChatSession(backend: backend, parameters: parameters, hooks: hooks)
            session.history = Array(messages.dropLast())
            return try await session.reply(to: messages.last!.content).collect().summary?.statistics ?? GenerationStatistics()
        }
        // The bare loop runs on the thread the engine decodes on, so only the engine's own work differs.
        let onDecodeThread = { (count: Int) async in
            await Task(executorPreference: backend.taskExecutor) { bare.run(prompt: prompt, maxTokens: count) }.value
        }
        _ = await onDecodeThread(16)  // warm caches and threads before measuring
        for _ in 0..<rounds {
            bareRates.append(await onDecodeThread(tokens).tokensPerSecond)
            let statistics = try await engineRun(hooks: [])
            counted = statistics.generatedTokens
            engineRates.append(statistics.tokensPerSecond ?? 0)
            if !plugins.isEmpty {
                let withPlugins = try await engineRun(hooks: plugins)
                pluginRates.append(withPlugins.tokensPerSecond ?? 0)
                let calls = plugins.reduce(0) { $0 + $1.points.intersection([.stop, .token, .logits]).count }
                    * max(withPlugins.generatedTokens, 1)
                hookCallCosts.append(withPlugins.hookDuration.seconds * 1e6 / Double(max(calls, 1)))
            }
        }
        backend.clearCache()
        // The speed of a shared machine drifts over seconds; a ratio of two runs measured back to
        // back cancels most of the drift, and the median ignores the rounds a burst disturbed.
        let ratios = zip(engineRates, bareRates).map { $1 > 0 ? $0 / $1 : 0 }
        let pluginRatios = zip(pluginRates, bareRates).map { $1 > 0 ? $0 / $1 : 0 }
        return Result(bareTokensPerSecond: median(bareRates), engineTokensPerSecond: median(engineRates),
                      tokensPerRound: counted, ratio: median(ratios),
                      pluginRatio: plugins.isEmpty ? nil : median(pluginRatios),
                      pluginTokensPerSecond: plugins.isEmpty ? nil : median(pluginRates),
                      microsecondsPerHookCall: plugins.isEmpty ? nil : median(hookCallCosts),
                      pluginNames: plugins.map(\.name))
    }
}
