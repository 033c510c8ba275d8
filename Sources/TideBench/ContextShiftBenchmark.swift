import TideCore
import TideFormat
import TideLlama

/// The time per turn of a conversation fourteen times longer than its context, as `tide chat
/// --context-overflow shift` holds it (the cache shifted, nothing read again) and as
/// `drop-oldest` does (the oldest exchanges dropped from the prompt, whose changed start is read
/// again): each turn a note of about 360 tokens, answered "ok" (a grammar's), on a 2048-token
/// context, side by side in each round.
struct ContextShiftBenchmark {
    let model: LlamaModel
    let rounds: Int
    let threads: Int?

    /// The context the conversation outgrows.
    static let contextSize = 2048
    /// Turns per conversation: about 29,000 tokens in all, fourteen times the context.
    static let turns = 80

    struct Result: Sendable {
        /// Tokens of the whole conversation at its end.
        var conversationTokens: Int
        /// The first turn whose prompt did not fit whole.
        var firstOverflowTurn: Int
        /// Median seconds of each turn, under each policy.
        var shiftSeconds: [Double]
        var dropSeconds: [Double]
        /// Prompt tokens evaluated by each turn (the last round's), under each policy.
        var shiftEvaluated: [Int]
        var dropEvaluated: [Int]

        /// Turns just after the conversation first outgrew the context.
        private var early: Range<Int> { min(firstOverflowTurn + 1, Self.last.lowerBound)..<min(firstOverflowTurn + 11, Self.last.lowerBound) }
        /// The conversation's last turns.
        static var last: Range<Int> { (ContextShiftBenchmark.turns - 10)..<ContextShiftBenchmark.turns }

        /// A late turn's time over an early one's, under the shift: 1 when flat.
        var flatness: Double { ratio(median(Array(shiftSeconds[Self.last])), median(Array(shiftSeconds[early]))) }
        /// A late turn's time under the shift over under `drop-oldest`.
        var overDropping: Double { ratio(median(Array(shiftSeconds[Self.last])), median(Array(dropSeconds[Self.last]))) }
        /// Median prompt tokens a late turn evaluates, under each policy.
        var shiftLateEvaluated: Int { Int(median(shiftEvaluated[Self.last].map(Double.init))) }
        var dropLateEvaluated: Int { Int(median(dropEvaluated[Self.last].map(Double.init))) }
        /// Median seconds of an early and a late turn under the shift.
        var earlySeconds: Double { median(Array(shiftSeconds[early])) }
        var lateSeconds: Double { median(Array(shiftSeconds[Self.last])) }
        var lateDropSeconds: Double { median(Array(dropSeconds[Self.last])) }

        private func ratio(_ top: Double, _ bottom: Double) -> Double { bottom > 0 ? top / bottom : 0 }
    }

    /// A note of about 360 tokens, different at each turn.
    static func note(_ turn: Int) -> String {
        "Note \(turn): " + (0..<60).map { "item\(turn)-\($0)" }.joined(separator: " ")
    }

    func run() async throws -> Result {
        var shift = [[Double]](repeating: [], count: Self.turns)
        var drop = [[Double]](repeating: [], count: Self.turns)
        var evaluated: [ContextOverflowPolicy: [Int]] = [:]
        var firstOverflow = Self.turns
        var conversationTokens = 0
        for _ in 0..<rounds {
            for policy in [ContextOverflowPolicy.shift, .dropOldest] {
                let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: Self.contextSize, threads: threads))
                var parameters = GenerationParameters()
                parameters.temperature = 0
                parameters.maxTokens = 8
                parameters.format = .exactly("ok")
                let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant. Answer every note with ok.",
                                          parameters: parameters, overflowPolicy: policy)
                var counts: [Int] = []
                var previousPrompt = 0
                for turn in 0..<Self.turns {
                    let statistics = try await session.reply(to: Self.note(turn)).collect().summary?.statistics ?? GenerationStatistics()
                    if policy == .shift {
                        shift[turn].append(statistics.replyDuration.seconds)
                    } else {
                        drop[turn].append(statistics.replyDuration.seconds)
                    }
                    counts.append(statistics.evaluatedPromptTokens)
                    // The first shift leaves a prompt shorter than the last.
                    if policy == .shift, statistics.promptTokens < previousPrompt { firstOverflow = min(firstOverflow, turn) }
                    previousPrompt = statistics.promptTokens
                }
                evaluated[policy] = counts
                if policy == .shift { conversationTokens = try backend.promptTokens(for: session.history).count }
            }
        }
        return Result(conversationTokens: conversationTokens, firstOverflowTurn: firstOverflow, shiftSeconds: shift.map(median),
                      dropSeconds: drop.map(median), shiftEvaluated: evaluated[.shift] ?? [], dropEvaluated: evaluated[.dropOldest] ?? [])
    }
}
