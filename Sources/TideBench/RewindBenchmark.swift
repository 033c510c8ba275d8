import TideCore
import TideLlama

/// What phrase bans cost: the decode rate with `ban-phrases` (its built-in list, and 1,000
/// phrases) on a reply where no phrase occurs, against no plugin; and, on a reply where a ban
/// fires, the time of each rewind beyond the decoding of the tokens it takes back. Sides
/// alternate every round on one context.
struct RewindBenchmark {
    let model: LlamaModel
    let tokens: Int
    let rounds: Int
    let threads: Int?
    /// `ban-phrases slop=true`, `ban-phrases` with 1,000 phrases, and a ban that fires (`phrases=the`).
    let slopList: any ChatHook
    let thousandPhrases: any ChatHook
    let firingBan: any ChatHook

    struct Result: Sendable {
        var plainTokensPerSecond: Double
        /// Median paired ratios of the decode rate with the plugin to that without.
        var slopListRatio: Double
        var thousandPhrasesRatio: Double
        /// Rewinds in the slop-list and 1,000-phrase replies (0 means no phrase occurred).
        var quietRewinds: Int
        /// On the reply where the ban fires: rewinds, tokens taken back, rewinds per second, and
        /// the median cost of a rewind beyond decoding the tokens again, in milliseconds.
        var rewinds: Int
        var discardedTokens: Int
        var rewindsPerSecond: Double
        var millisecondsPerRewind: Double
    }

    func run() async throws -> Result {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = tokens
        parameters.maxRewinds = 10_000
        func reply(_ question: String, hooks: [any ChatHook]) async throws -> GenerationStatistics {
            backend.clearCache()
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters, hooks: hooks)
            return try await session.reply(to: question).collect().summary?.statistics ?? GenerationStatistics()
        }
        // A reply of numbers holds none of the phrases; a story about "the" sea holds many "the".
        let quiet = "List the numbers from 1 to 100, separated by commas."
        let story = "Write a long story about the sea."
        var plainRates: [Double] = [], slopRatios: [Double] = [], thousandRatios: [Double] = []
        var quietRewinds = 0
        var rewindCosts: [Double] = [], rewindRates: [Double] = []
        var (rewinds, discarded) = (0, 0)
        for round in 0..<rounds {
            var rates: [String: Double] = [:]
            let sides: [(String, [any ChatHook])] = [("plain", []), ("slop", [slopList]), ("thousand", [thousandPhrases])]
            for (name, hooks) in round % 2 == 0 ? sides : sides.reversed() {
                let statistics = try await reply(quiet, hooks: hooks)
                rates[name] = statistics.tokensPerSecond ?? 0
                quietRewinds += statistics.rewinds
            }
            let plain = rates["plain"] ?? 0
            plainRates.append(plain)
            slopRatios.append(plain > 0 ? (rates["slop"] ?? 0) / plain : 0)
            thousandRatios.append(plain > 0 ? (rates["thousand"] ?? 0) / plain : 0)
            let firing = try await reply(story, hooks: [firingBan])
            let free = try await reply(story, hooks: [])
            (rewinds, discarded) = (firing.rewinds, firing.discardedTokens)
            guard firing.rewinds > 0, free.generatedTokens > 1 else { continue }
            // Decoding after the first token, at the plain reply's cost per token. The last token a
            // rewind takes back was sampled but never decoded, so each rewind decodes one token less.
            let perToken = free.decodeDuration.seconds / Double(free.generatedTokens - 1)
            let decoded = firing.generatedTokens + firing.discardedTokens - firing.rewinds - 1
            rewindCosts.append((firing.decodeDuration.seconds - perToken * Double(decoded)) / Double(firing.rewinds) * 1000)
            rewindRates.append(Double(firing.rewinds) / firing.decodeDuration.seconds)
        }
        backend.clearCache()
        return Result(plainTokensPerSecond: median(plainRates), slopListRatio: median(slopRatios),
                      thousandPhrasesRatio: median(thousandRatios), quietRewinds: quietRewinds, rewinds: rewinds,
                      discardedTokens: discarded, rewindsPerSecond: median(rewindRates),
                      millisecondsPerRewind: median(rewindCosts))
    }
}
