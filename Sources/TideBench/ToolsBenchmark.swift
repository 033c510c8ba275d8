import Synchronization
import TideCore
import TideFormat
import TideLlama

/// What tool calling costs. Offered but not called: the decode rate of a greedy reply that calls
/// no tool, with the tools offered (the call's marker watched for, the lazy grammar waiting)
/// against the same reply to the same prompt without them (the tools' block written into the
/// system prompt by hand, so that both contexts are as long), sides alternating every round; and
/// against a reply without the block, the whole cost of offering tools. A call (required, the
/// tools still offered after it): reading it from the reply, running the Lua tool, and resuming —
/// from the result to the next round's first scores, the prompt's new tokens (the call's end, the
/// result) evaluated.
struct ToolsBenchmark {
    let model: LlamaModel
    /// A plugin with a tool that takes `{"expression": …}` (the shipped calculator).
    let tool: any ChatHook & ToolProvider
    let tokens: Int
    let rounds: Int
    let threads: Int?

    /// A reply that has no use for a calculator.
    static let freePrompt = "Write a long essay about the history of the cities of Europe, with many details."
    static let callPrompt = "What is 12.5% of 3400?"

    struct Result: Sendable {
        var plainTokensPerSecond: Double
        /// Median paired ratio of the decode rate with the tools offered to that without, on the same prompt.
        var offeredRatio: Double
        /// The same against a prompt without the tools' block.
        var shorterPromptRatio: Double
        /// Tokens of the replies with and without the tools, and whether any offered reply called one.
        var offeredTokens: Int
        var plainTokens: Int
        var called: Bool
        /// Medians, in milliseconds: from the result to the next round's first scores; the tool's
        /// run; reading two calls from a reply's text.
        var resumeMilliseconds: Double
        var toolMilliseconds: Double
        var parseMilliseconds: Double
        /// Whether every round's first reply made exactly one call.
        var oneCallEachRound: Bool
    }

    func run() async throws -> Result {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        let system = "You are a helpful assistant."
        // The prompt that offering the tools makes, with the tools not offered.
        let block = HermesToolCalls().prompt([ChatMessage(.system, system)], offering: tool.tools).first?.content ?? system
        func session(toolChoice: ToolChoice, maxTokens: Int, system: String = system, clock: ScoresClock? = nil) -> ChatSession {
            backend.clearCache()
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = maxTokens
            parameters.toolChoice = toolChoice
            parameters.maxToolRounds = 2
            parameters.parallelToolCalls = false
            return ChatSession(backend: backend, systemPrompt: system, parameters: parameters, hooks: [tool] + (clock.map { [$0] } ?? []))
        }
        var plainRates: [Double] = [], ratios: [Double] = [], shorterRatios: [Double] = []
        var offeredTokens = 0, plainTokens = 0
        var called = false
        for round in 0..<rounds {
            var rates: [String: Double] = [:]
            for side in round % 2 == 0 ? ["plain", "block", "offered"] : ["offered", "block", "plain"] {
                let reply = try await session(toolChoice: side == "offered" ? .auto : .none, maxTokens: tokens,
                                              system: side == "block" ? block : system).reply(to: Self.freePrompt).collect()
                let statistics = reply.summary?.statistics ?? GenerationStatistics()
                if side == "offered" {
                    called = called || !reply.toolCalls.isEmpty || reply.summary?.toolCallProblem != nil
                    offeredTokens = statistics.generatedTokens
                } else if side == "block" {
                    plainTokens = statistics.generatedTokens
                }
                rates[side] = statistics.tokensPerSecond ?? 0
            }
            let plain = rates["plain"] ?? 0, block = rates["block"] ?? 0, offered = rates["offered"] ?? 0
            plainRates.append(block)
            if block > 0, offered > 0 { ratios.append(offered / block) }
            if plain > 0, offered > 0 { shorterRatios.append(offered / plain) }
        }
        var resumes: [Double] = [], runs: [Double] = []
        var oneCall = true
        for _ in 0..<rounds {
            let scores = ScoresClock()
            var resulted: ContinuousClock.Instant?
            var results: [ToolResult] = []
            for try await event in session(toolChoice: .required, maxTokens: 96, clock: scores).reply(to: Self.callPrompt) {
                guard case .toolResult(let result) = event else { continue }
                resulted = resulted ?? ContinuousClock.now
                results.append(result)
            }
            oneCall = oneCall && results.count >= 1 && results.allSatisfy { $0.call.id.hasSuffix("_1") }
            guard let resulted, let result = results.first, let next = scores.first(after: resulted) else { continue }
            resumes.append((next - resulted).seconds * 1000)
            runs.append(result.duration.seconds * 1000)
        }
        backend.clearCache()
        return Result(plainTokensPerSecond: median(plainRates), offeredRatio: median(ratios), shorterPromptRatio: median(shorterRatios),
                      offeredTokens: offeredTokens,
                      plainTokens: plainTokens, called: called, resumeMilliseconds: median(resumes), toolMilliseconds: median(runs),
                      parseMilliseconds: Self.parseMilliseconds(), oneCallEachRound: oneCall)
    }

    /// Reading two calls from a reply's text, the median of 200 tries.
    static func parseMilliseconds() -> Double {
        let text = #"<tool_call>\#n{"name": "calculate", "arguments": {"expression": "0.125 * 3400"}}\#n</tool_call>\#n"#
            + #"<tool_call>\#n{"name": "calculate", "arguments": {"expression": "sqrt(2) * (3 + 4.5)"}}\#n</tool_call>"#
        let clock = ContinuousClock()
        let times = (0..<200).map { _ in
            let start = clock.now
            _ = try? HermesToolCalls().calls(in: text)
            return (clock.now - start).seconds * 1000
        }
        return median(times)
    }
}

/// A hook that notes when each token's scores are ready (`on_logits` runs then).
final class ScoresClock: ChatHook, Sendable {
    let name = "scores-clock"
    let points: Set<HookPoint> = [.logits]
    private let times = Mutex<[ContinuousClock.Instant]>([])

    func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
        times.withLock { $0.append(ContinuousClock.now) }
    }

    /// The first time after `instant`.
    func first(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        times.withLock { $0.first { $0 > instant } }
    }
}
