import TideCore

/// The per-step policy of a reply that asks for log-probabilities
/// (``GenerationParameters/logprobs``): the distribution after the hooks, before any budget
/// steering masks it, and the chosen token's place in it.
final class LogprobReading: StepPolicy {
    /// How many of the likeliest tokens each log-probability comes with.
    private let top: Int
    private let vocabularySize: Int
    private var distribution: LogSoftmax?
    /// The log-probability of the token the last step chose; `nil` when it chose none.
    private(set) var lastLogprob: TokenLogprob?

    init(top: Int, vocabularySize: Int) {
        self.top = top
        self.vocabularySize = vocabularySize
    }

    var readsScores: Bool { true }

    func stepBegins(_ scores: UnsafeMutablePointer<Float>, isNewPosition: Bool) {
        distribution = nil
        lastLogprob = nil
    }

    func choosing(from scores: UnsafeMutablePointer<Float>, model: LlamaModel) {
        distribution = LogSoftmax(scores, count: vocabularySize, top: top)
    }

    func chose(_ token: Int32, score: Float, model: LlamaModel) {
        lastLogprob = distribution?.scored(token, logit: score, model: model)
    }
}
