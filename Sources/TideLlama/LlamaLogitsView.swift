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

    /// The `k` best tokens by one pass of partial selection: a sorted buffer of at most `k`
    /// entries that a token enters only if it beats the current worst.
    func top(_ k: Int) -> [TokenCandidate] {
        let k = min(max(k, 0), vocabularySize)
        guard k > 0 else { return [] }
        var best: [(id: Int32, logit: Float)] = []
        best.reserveCapacity(k + 1)
        for index in 0..<vocabularySize {
            let logit = logits[index]
            if best.count == k, logit <= best[k - 1].logit { continue }
            let position = best.firstIndex { $0.logit < logit } ?? best.count
            best.insert((Int32(index), logit), at: position)
            if best.count > k { best.removeLast() }
        }
        return best.map { TokenCandidate(id: $0.id, text: model.tokenText($0.id), logit: $0.logit) }
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
