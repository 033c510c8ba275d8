import TideCore
import TideLlama

/// Time to first token of a follow-up turn on a ~1000-token history, with the history already
/// in the KV cache (the normal multi-turn case) against evaluating it all from an empty cache.
struct CacheReuseBenchmark {
    let model: LlamaModel
    let rounds: Int
    let threads: Int?

    struct Result: Sendable {
        var historyTokens: Int
        var reusedTokens: Int
        var reusedSeconds: Double
        var fullSeconds: Double
        var ratio: Double { fullSeconds > 0 ? reusedSeconds / fullSeconds : 0 }
    }

    /// A fixed conversation of about a thousand tokens.
    static let history: [ChatMessage] = {
        let topics = ["lighthouses", "tides", "the moon", "sailing ships", "coral reefs", "whales", "storms", "harbours"]
        var messages = [ChatMessage(.system, "You are a helpful assistant.")]
        for topic in topics {
            messages.append(ChatMessage(.user, "Tell me something interesting about \(topic)."))
            messages.append(ChatMessage(.assistant, Array(repeating:
                "People have studied \(topic) for centuries, and every generation finds new questions to ask about them.",
                count: 5).joined(separator: " ")))
        }
        return messages
    }()

    func run() async throws -> Result {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 1
        let session = ChatSession(backend: backend, parameters: parameters)
        func firstTokenTime(_ question: String, clearing: Bool) async throws -> GenerationStatistics {
            if clearing { backend.clearCache() }
            session.history = Self.history
            return try await session.reply(to: question).collect().summary?.statistics ?? GenerationStatistics()
        }
        _ = try await firstTokenTime("Which topic came first?", clearing: true)  // warm up and fill the cache
        var reused: [Double] = []
        var full: [Double] = []
        var last = GenerationStatistics()
        for round in 0..<rounds {
            let question = "Question \(round + 1): which topic did we discuss in turn \(round + 1)?"
            last = try await firstTokenTime(question, clearing: false)
            reused.append(last.timeToFirstToken?.seconds ?? 0)
            full.append(try await firstTokenTime(question, clearing: true).timeToFirstToken?.seconds ?? 0)
        }
        return Result(historyTokens: last.promptTokens, reusedTokens: last.reusedPromptTokens,
                      reusedSeconds: median(reused), fullSeconds: median(full))
    }
}
