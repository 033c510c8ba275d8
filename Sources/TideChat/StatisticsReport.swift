import Foundation
import TideCore

/// The summary of a reply that `tide generate --stats` and the chat's `/stats` print: a line of
/// figures, then the plugins' costs as a table (``HookCostTable``) when plugins were called.
public struct StatisticsReport: CustomStringConvertible, Sendable {
    /// The reply's figures.
    public let statistics: GenerationStatistics
    /// How the reply ended.
    public let stopReason: StopReason
    /// The process's peak resident memory, when it is worth showing.
    public let peakMemoryBytes: Int64?
    /// Where the model ran (``ModelDescription/placement``); `nil` for a model on a server.
    public let placement: String?

    /// A report of one reply.
    public init(statistics: GenerationStatistics, stopReason: StopReason, peakMemoryBytes: Int64? = nil, placement: String? = nil) {
        self.statistics = statistics
        self.stopReason = stopReason
        self.peakMemoryBytes = peakMemoryBytes
        self.placement = placement
    }

    public var description: String {
        let s = statistics
        var parts = ["prompt tokens: \(s.promptTokens) (\(s.reusedPromptTokens) reused)",
                     "generated tokens: \(s.generatedTokens)"]
        if s.rewinds > 0 { parts.append("rewinds: \(s.rewinds) (\(s.discardedTokens) token\(s.discardedTokens == 1 ? "" : "s") taken back)") }
        if let ttft = s.timeToFirstToken { parts.append("time to first token: \(milliseconds(ttft))") }
        if let rate = s.tokensPerSecond { parts.append("tokens/s: " + rate.formatted(.number.precision(.fractionLength(1)))) }
        if let drafts = s.drafting {
            parts.append("drafts: \(drafts.accepted) of \(drafts.drafted) accepted, "
                + drafts.tokensPerVerification.formatted(.number.precision(.fractionLength(1))) + " tokens per check")
        }
        if let steering = s.steering {
            parts.append("format steered to finish within max-tokens: \(steering.tokens) token\(steering.tokens == 1 ? "" : "s") "
                + "from token \(steering.from + 1)")
        }
        if !s.toolResults.isEmpty {
            let time = s.toolResults.reduce(Duration.zero) { $0 + $1.duration }
            parts.append("tool calls: \(s.toolResults.count) in \(s.toolRounds) round\(s.toolRounds == 1 ? "" : "s") (\(milliseconds(time)))")
        }
        if s.hookDuration > .zero { parts.append("hooks: \(milliseconds(s.hookDuration))") }
        if let peak = peakMemoryBytes {
            parts.append("peak memory: " + (Double(peak) / 1_048_576).formatted(.number.precision(.fractionLength(1))
                .grouping(.never).locale(Locale(identifier: "en_US_POSIX"))) + " MiB")
        }
        if let placement { parts.append("runs on: \(placement)") }
        parts.append("stop: \(stopReason)")
        let costs = HookCostTable.lines(s.hookCosts ?? [], tokens: s.generatedTokens, replyTime: s.replyDuration)
        return ([parts.joined(separator: " · ")] + costs.map { "  " + $0 }).joined(separator: "\n")
    }

    private func milliseconds(_ duration: Duration) -> String {
        (duration.seconds * 1000).formatted(.number.precision(.fractionLength(1))) + " ms"
    }
}
