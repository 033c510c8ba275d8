/// How many prompt tokens one step of a ``LlamaBatchEngine`` decodes beside the replies in
/// progress (chunked prefill): as many as cost about ``share`` of the decode of the replies' next
/// tokens, so that a neighbour's long prompt slows every reply by about that share instead of
/// stopping it for a whole batch of prompt at a time. Both costs are measured as the engine runs
/// (a moving average of each), so the pace follows the machine, the model and how deep into its
/// context the prompt is.
///
/// Used where ``LlamaContextOptions/chunkedPrefill`` is on (`tide serve`). A piece is at most 63
/// tokens, so llama.cpp computes it with the kernels of a short prompt.
struct PrefillPace {
    /// The part of a replies' step that the prompt beside it may add.
    static let share = 0.3
    /// How many tokens a step takes before anything is measured.
    static let firstPiece = 8
    /// The weight of the newest measurement in each moving average.
    static let weight = 0.25

    /// Seconds of a decode of the replies' next tokens.
    private(set) var stepSeconds: Double?
    /// Seconds per token of a piece of prompt decoded beside them.
    private(set) var tokenSeconds: Double?

    /// Counts a decode of the replies' tokens that took `seconds`.
    mutating func recordStep(seconds: Double) {
        stepSeconds = Self.average(stepSeconds, seconds)
    }

    /// Counts a piece of `tokens` prompt tokens that took `seconds`.
    mutating func recordPiece(tokens: Int, seconds: Double) {
        guard tokens > 0 else { return }
        tokenSeconds = Self.average(tokenSeconds, seconds / Double(tokens))
    }

    /// How many prompt tokens the next step beside the replies takes: at least 2, at most `limit`.
    func tokens(limit: Int) -> Int {
        let paced: Int
        if let stepSeconds, let tokenSeconds, tokenSeconds > 0 {
            paced = Int((Self.share * stepSeconds / tokenSeconds).rounded(.down))
        } else {
            paced = Self.firstPiece
        }
        return max(2, min(paced, limit))
    }

    private static func average(_ current: Double?, _ new: Double) -> Double {
        guard let current else { return new }
        return current + weight * (new - current)
    }
}
