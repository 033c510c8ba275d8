import TideCore
import TideLlama

/// Decode speed of the full engine (ChatSession, no hooks) against the bare llama.cpp loop, on
/// the same context, thread, prompt and greedy sampler, alternating the two every round; and the
/// engine with every token's scores copied and sampled by Tide, against the engine choosing the
/// token in llama.cpp's graph (the default for such a reply where the scores are on a GPU); and the engine giving each token's
/// log-probability with the 5 likeliest (`logprobs` 5), against the engine by default run beside it
/// (back to back, the order alternating); and the
/// default model's own sampling (temperature 0.2, repeat penalty 1.1, seeded) choosing among the
/// few best scores llama.cpp's graph keeps, against the same with the scores copied.
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
        /// The engine with the scores copied (no token chosen in llama.cpp's graph).
        var copiedTokensPerSecond: Double
        /// The engine choosing each token in llama.cpp's graph wherever it may, on any device.
        var inGraphTokensPerSecond: Double
        /// The median over rounds of that speed / the speed with the scores copied.
        var backendRatio: Double
        /// Whether the engine chooses greedy tokens in the graph by default on this machine (its
        /// scores are on a GPU).
        var choosesInGraphByDefault: Bool
        /// The engine giving each token's log-probability with the 5 likeliest.
        var logprobsTokensPerSecond: Double
        /// The default's rate in the runs beside them.
        var logprobsBaseTokensPerSecond: Double
        /// The median over rounds of that speed / the engine's by default.
        var logprobsRatio: Double
        /// Tokens llama.cpp chose in its graph, in all.
        var chosenOnBackend: Int
        /// The engine under the default model's sampling, choosing among the graph's candidates.
        var candidatesTokensPerSecond: Double
        /// The same with the scores copied.
        var candidatesCopiedTokensPerSecond: Double
        /// The median over rounds of the first / the second.
        var candidatesRatio: Double
        /// Tokens chosen among the graph's candidates, in all.
        var chosenAmongCandidates: Int
        /// Whether every seeded reply was the same both ways.
        var candidatesRepliesAgree: Bool
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
        var copiedRates: [Double] = []
        var inGraphRates: [Double] = []
        var logprobsRates: [Double] = [], logprobsBaseRates: [Double] = []
        var pluginRates: [Double] = []
        var hookCallCosts: [Double] = []
        var candidatesRates: [Double] = []
        var candidatesCopiedRates: [Double] = []
        var candidatesRepliesAgree = true
        var counted = 0
        // The default model's preset, seeded, without drafting (a draft reads the scores).
        var sampled = parameters
        sampled.temperature = 0.2
        sampled.repeatPenalty = 1.1
        sampled.draft = .off
        func engineReply(hooks: [any ChatHook], logprobs: Int? = nil, parameters: GenerationParameters = parameters) async throws -> CollectedReply {
            backend.clearCache()
            var parameters = parameters
            parameters.logprobs = logprobs
            let session = ChatSession(backend: backend, parameters: parameters, hooks: hooks)
            session.history = Array(messages.dropLast())
            return try await session.reply(to: messages.last!.content).collect()
        }
        func engineRun(hooks: [any ChatHook], logprobs: Int? = nil) async throws -> GenerationStatistics {
            try await engineReply(hooks: hooks, logprobs: logprobs).summary?.statistics ?? GenerationStatistics()
        }
        // The bare loop runs on the thread the engine decodes on, so only the engine's own work differs.
        let onDecodeThread = { (count: Int) async in
            await Task(executorPreference: backend.taskExecutor) { bare.run(prompt: prompt, maxTokens: count) }.value
        }
        _ = await onDecodeThread(16)  // warm caches and threads before measuring
        for round in 0..<rounds {
            bareRates.append(await onDecodeThread(tokens).tokensPerSecond)
            let statistics = try await engineRun(hooks: [])
            counted = statistics.generatedTokens
            engineRates.append(statistics.tokensPerSecond ?? 0)
            backend.graphChoices = .always
            inGraphRates.append(try await engineRun(hooks: []).tokensPerSecond ?? 0)
            backend.graphChoices = .never
            copiedRates.append(try await engineRun(hooks: []).tokensPerSecond ?? 0)
            backend.graphChoices = .whereTheyPay
            // Log-probabilities against the default, back to back, the order alternating.
            for asks in round % 2 == 0 ? [true, false] : [false, true] {
                let rate = try await engineRun(hooks: [], logprobs: asks ? 5 : nil).tokensPerSecond ?? 0
                if asks { logprobsRates.append(rate) } else { logprobsBaseRates.append(rate) }
            }
            sampled.seed = UInt32(candidatesRates.count + 1)
            let amongCandidates = try await engineReply(hooks: [], parameters: sampled)
            backend.graphChoices = .never
            let fromCopies = try await engineReply(hooks: [], parameters: sampled)
            backend.graphChoices = .whereTheyPay
            candidatesRates.append(amongCandidates.summary?.statistics.tokensPerSecond ?? 0)
            candidatesCopiedRates.append(fromCopies.summary?.statistics.tokensPerSecond ?? 0)
            candidatesRepliesAgree = candidatesRepliesAgree && amongCandidates.text == fromCopies.text
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
        let backendRatios = zip(inGraphRates, copiedRates).map { $1 > 0 ? $0 / $1 : 0 }
        let logprobsRatios = zip(logprobsRates, logprobsBaseRates).map { $1 > 0 ? $0 / $1 : 0 }
        let candidatesRatios = zip(candidatesRates, candidatesCopiedRates).map { $1 > 0 ? $0 / $1 : 0 }
        let pluginRatios = zip(pluginRates, bareRates).map { $1 > 0 ? $0 / $1 : 0 }
        return Result(bareTokensPerSecond: median(bareRates), engineTokensPerSecond: median(engineRates),
                      copiedTokensPerSecond: median(copiedRates), inGraphTokensPerSecond: median(inGraphRates),
                      backendRatio: median(backendRatios), choosesInGraphByDefault: model.placement.scoresOnGPU,
                      logprobsTokensPerSecond: median(logprobsRates), logprobsBaseTokensPerSecond: median(logprobsBaseRates),
                      logprobsRatio: median(logprobsRatios),
                      chosenOnBackend: backend.engine.tokensChosenOnBackend,
                      candidatesTokensPerSecond: median(candidatesRates), candidatesCopiedTokensPerSecond: median(candidatesCopiedRates),
                      candidatesRatio: median(candidatesRatios), chosenAmongCandidates: backend.engine.tokensChosenAmongGraphCandidates,
                      candidatesRepliesAgree: candidatesRepliesAgree, tokensPerRound: counted, ratio: median(ratios),
                      pluginRatio: plugins.isEmpty ? nil : median(pluginRatios),
                      pluginTokensPerSecond: plugins.isEmpty ? nil : median(pluginRates),
                      microsecondsPerHookCall: plugins.isEmpty ? nil : median(hookCallCosts),
                      pluginNames: plugins.map(\.name))
    }
}
