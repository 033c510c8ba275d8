import TideCore
import TideLlama

/// Time to first token of the 1st, 2nd and 10th turn of a chat, as `tide chat` runs one: one
/// session, the conversation growing in the KV cache. With the history reused, a later turn
/// evaluates only its new tokens; what it costs beyond that is attention over the longer
/// history, which llama.cpp itself pays — so each turn is set against llama.cpp alone evaluating
/// the same number of new tokens after the same number of cached ones (``PromptCost``).
struct ChatTurnsBenchmark {
    let model: LlamaModel
    let rounds: Int
    let threads: Int?

    /// The turns measured.
    static let turns = [1, 2, 10]

    struct Turn: Sendable {
        var number: Int
        /// Tokens in the prompt, and those evaluated (not reused from the cache).
        var promptTokens: Int
        var evaluatedTokens: Int
        /// Median time to first token.
        var seconds: Double
        /// Median time llama.cpp alone takes to evaluate as many tokens after as many cached ones.
        var bareSeconds: Double

        /// Tide's time to first token over llama.cpp's own cost of the new tokens.
        var overBare: Double { bareSeconds > 0 ? seconds / bareSeconds : 0 }
    }

    struct Result: Sendable {
        var turns: [Turn]

        /// Time to first token of turn `number` over that of the first.
        func ratio(_ number: Int) -> Double {
            guard let first = turns.first?.seconds, first > 0, let turn = turns.first(where: { $0.number == number })
            else { return 0 }
            return turn.seconds / first
        }
    }

    static let topics = ["lighthouses", "tides", "the moon", "sailing ships", "coral reefs", "whales", "storms",
                         "harbours", "islands", "rivers"]

    func run() async throws -> Result {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 4096, threads: threads))
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 48
        var times: [Int: [Double]] = [:]
        var last: [Int: GenerationStatistics] = [:]
        for _ in 0..<(rounds + 1) {
            backend.clearCache()
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
            for (index, topic) in Self.topics.enumerated() {
                let statistics = try await session.reply(to: "Tell me one interesting fact about \(topic).").collect()
                    .summary?.statistics ?? GenerationStatistics()
                if Self.turns.contains(index + 1) {
                    times[index + 1, default: []].append(statistics.timeToFirstToken?.seconds ?? 0)
                    last[index + 1] = statistics
                }
            }
        }
        let points = Self.turns.map { number in
            PromptCost.Point(position: last[number]?.reusedPromptTokens ?? 0, tokens: last[number]?.evaluatedPromptTokens ?? 1)
        }
        let bare = try PromptCost(model: model, threads: threads).run(points, rounds: rounds)
        // The first round warms up the caches of the machine and is not counted.
        return Result(turns: zip(Self.turns, points).map { number, point in
            Turn(number: number, promptTokens: last[number]?.promptTokens ?? 0, evaluatedTokens: point.tokens,
                 seconds: median(Array(times[number, default: []].dropFirst())), bareSeconds: bare[point] ?? 0)
        })
    }
}
