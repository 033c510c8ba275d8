import Foundation
import TideCore
import TideLlama
import TideLog

/// What the conversation log costs: the decode rate of replies logged against the same replies
/// unlogged, alternating every round; and how fast `tide logs search` answers over 100,000
/// logged replies (written through the log itself, from a synthetic filler, not the model).
struct LogBenchmark {
    let model: LlamaModel
    let tokens: Int
    let rounds: Int
    let threads: Int?
    /// Replies the search figure is measured over.
    let filledReplies: Int
    /// The `tide` executable, to time `tide logs search` as a user runs it.
    let executable: String

    struct Query: Sendable {
        var text: String
        var hits: Int
        /// Median time to answer, in seconds.
        var seconds: Double
    }

    struct Result: Sendable {
        var plainTokensPerSecond: Double
        var loggedTokensPerSecond: Double
        /// The median over rounds of the logged rate over the unlogged one, measured back to back.
        var ratio: Double
        /// The same for two unlogged sides: how far this machine lets identical work differ.
        var controlRatio: Double
        var filledReplies: Int
        /// How fast the filler's replies were written, through the log's own queue.
        var repliesPerSecond: Double
        var databaseBytes: Int64
        var queries: [Query]
        /// The slowest query's median time.
        var slowestSeconds: Double { queries.map(\.seconds).max() ?? 0 }
        /// Median time of the whole command `tide logs search lighthouse`, process start included.
        var commandSeconds: Double
    }

    func run() async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-log-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = LogDatabase(path: folder.appendingPathComponent("tide/logs.db")) { _ in }
        let rates = try await decodeRates(database)
        let path = database.path.path
        let start = ContinuousClock.now
        try fill(database)
        let fillSeconds = (ContinuousClock.now - start).seconds
        var queries: [Query] = []
        for text in Self.queries {
            var times: [Double] = []
            var hits = 0
            for _ in 0..<21 {
                let began = ContinuousClock.now
                hits = try database.search(text, limit: 20, open: "[", close: "]").count
                times.append((ContinuousClock.now - began).seconds)
            }
            queries.append(Query(text: text, hits: hits, seconds: median(Array(times.dropFirst()))))
        }
        var commandTimes: [Double] = []
        for _ in 0..<21 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["logs", "search", "lighthouse"]
            process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": folder.path]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            let began = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            commandTimes.append((ContinuousClock.now - began).seconds)
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
        return Result(plainTokensPerSecond: median(rates.plain), loggedTokensPerSecond: median(rates.logged),
                      ratio: median(rates.ratios), controlRatio: median(rates.controlRatios),
                      filledReplies: filledReplies, repliesPerSecond: Double(filledReplies) / fillSeconds,
                      databaseBytes: bytes, queries: queries, commandSeconds: median(Array(commandTimes.dropFirst())))
    }

    /// The decode rates of replies without the log, with it, and without it again (the control:
    /// how far two sides that do the same work differ on this machine), the order rotating every
    /// round; and the paired ratios logged / plain and control / plain.
    private func decodeRates(_ database: LogDatabase) async throws -> (plain: [Double], logged: [Double], ratios: [Double],
                                                                          controlRatios: [Double]) {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = tokens
        func reply(logged: Bool) async throws -> Double {
            backend.clearCache()
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
            if logged { session.recorder = ConversationLog(database: database, source: .generate, model: model.facts.name) }
            let rate = try await session.reply(to: "Write a long story about a lighthouse keeper.").collect().summary?
                .statistics.tokensPerSecond ?? 0
            database.flush()
            return rate
        }
        _ = try await reply(logged: true)  // creates the database and warms the caches
        var (plain, logged, control, ratios, controlRatios) = ([Double](), [Double](), [Double](), [Double](), [Double]())
        let orders = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
        for round in 0..<(rounds * 2) {
            for side in orders[round % 3] {
                let rate = try await reply(logged: side == 1)
                switch side {
                case 0: plain.append(rate)
                case 1: logged.append(rate)
                default: control.append(rate)
                }
            }
            ratios.append(plain.last! > 0 ? logged.last! / plain.last! : 0)
            controlRatios.append(plain.last! > 0 ? control.last! / plain.last! : 0)
        }
        backend.clearCache()
        return (plain, logged, ratios, controlRatios)
    }

    /// The searches timed: a rare word, a common one, a phrase, a prefix, two words together.
    static let queries = ["lighthouse", "the", "\"quiet harbour\"", "tid*", "storm AND keeper"]

    /// Writes `filledReplies` exchanges, ten to a conversation, of made-up sentences over a
    /// vocabulary of 2,000 words and a few real ones, through conversation logs as a session would.
    private func fill(_ database: LogDatabase) throws {
        let syllables = ["ka", "zu", "mo", "ri", "te", "vo", "pli", "gra", "shu", "nek", "ba", "lo"]
        var words = (0..<2000).map { n in (0..<3).map { syllables[(n / [1, 12, 144][$0]) % 12] }.joined() }
        words += ["the", "sea", "quiet", "harbour", "storm", "keeper", "tide", "tides", "lighthouse"]
        var generator = SplitMix(seed: 42)
        func sentence(_ length: Int) -> String {
            (0..<length).map { _ in words[Int(generator.next() % UInt64(words.count))] }.joined(separator: " ") + "."
        }
        var statistics = GenerationStatistics()
        statistics.promptTokens = 40
        statistics.generatedTokens = 60
        let parameters = GenerationParameters()
        for conversation in 0..<(filledReplies / 10) {
            let log = ConversationLog(database: database, source: .chat, model: "filler")
            var messages = [ChatMessage(.system, "You are a helpful assistant.")]
            for _ in 0..<10 {
                messages.append(ChatMessage(.user, sentence(12)))
                let text = sentence(40)
                let summary = ReplySummary(stopReason: .endOfGeneration, statistics: statistics, rawText: text, text: text, storedText: text)
                log.record(Exchange(messages: messages, reply: ChatMessage(.assistant, text), summary: summary,
                                    parameters: parameters, plugins: []))
                messages.append(ChatMessage(.assistant, text))
            }
            if conversation % 500 == 0 { database.flush() }
        }
        database.flush()
    }
}

/// A small seeded random number generator, so every run fills the same log.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
