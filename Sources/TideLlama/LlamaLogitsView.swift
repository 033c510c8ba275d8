import TideCore

/// The logits of one decoding step, edited in place before the sampler reads them.
final class LlamaLogitsView: LogitsView {
    private let logits: UnsafeMutablePointer<Float>
    private let model: LlamaModel
    let vocabularySize: Int
    /// Whether some token was banned, so that ``hasCandidates`` must look.
    private var banned = false

    init(logits: UnsafeMutablePointer<Float>, model: LlamaModel) {
        self.logits = logits
        self.model = model
        self.vocabularySize = model.facts.vocabularySize
    }

    /// The `k` best tokens (``TopScores``).
    func top(_ k: Int) -> [TokenCandidate] {
        TopScores.best(k, of: logits, count: vocabularySize).map { TokenCandidate(id: $0.id, text: model.tokenText($0.id), logit: $0.logit) }
    }

    func bias(_ token: Int32, by delta: Float) {
        guard model.isValidToken(token) else { return }
        // Kept finite: biases that add up to ±inf would leave the sampler nothing but NaN (a ban is -inf, on purpose).
        logits[Int(token)] = min(max(logits[Int(token)] + delta, -.greatestFiniteMagnitude), .greatestFiniteMagnitude)
    }

    func ban(_ token: Int32) {
        guard model.isValidToken(token) else { return }
        logits[Int(token)] = -.infinity
        banned = true
    }

    /// Whether some token can still be sampled: false when hooks banned every one.
    var hasCandidates: Bool {
        guard banned else { return true }
        return (0..<vocabularySize).contains { logits[$0] > -.infinity }
    }
}
