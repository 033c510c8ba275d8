import CLlama
import TideCore

/// Teacher forcing's tolerance (and the check of a drafted token): the expected token is chosen
/// when the sampler chooses it with its score raised by at most the tolerance (``Tolerance``).
extension SamplerChain {
    /// The token teacher forcing (or a draft check) expects at the next position: the expected
    /// one, or, for the model's end, its best-scored end-of-generation token; `nil` when the hooks
    /// banned it.
    func expectedToken(_ expected: Expectation, in scores: UnsafeMutablePointer<Float>, model: LlamaModel) -> Int32? {
        let token = expected.token ?? model.endOfGenerationTokens.max { scores[Int($0)] < scores[Int($1)] }
        guard let token, model.isValidToken(token), scores[Int(token)] > -.infinity else { return nil }
        return token
    }

    /// Samples from `scores` as ``choose(_:context:at:)`` does; when that is not `wanted` (nor,
    /// `acceptingAnyEnd`, another of the model's end tokens, nor a token spelling the `upcoming`
    /// bytes otherwise), and the sampler, back in its state
    /// before, chooses `wanted` with its score raised by at most `tolerance`, samples again from
    /// there with the least such raise (to a bisection's precision), so that its state is that of
    /// having chosen `wanted`.
    func chooseWithin(_ tolerance: Double, of wanted: Int32, _ scores: UnsafeMutablePointer<Float>,
                              context: OpaquePointer?, at index: Int32, acceptingAnyEnd: Bool, upcoming: ArraySlice<UInt8>,
                              model: LlamaModel) -> Int32?
    {
        let isExpected = { (token: Int32?) in
            guard let token else { return false }
            if token == wanted || (acceptingAnyEnd && model.isEndOfGeneration(token)) { return true }
            let spelled = model.tokenBytes(token)
            return !spelled.isEmpty && upcoming.starts(with: spelled)
        }
        // Plain greedy decoding keeps no state to go back to: the margin is the gap to the best score.
        if argmaxOnly, grammar == nil {
            let best = argmax(scores)
            let gap = scores[Int(best)] - scores[Int(wanted)]
            guard !isExpected(best), Double(gap) <= tolerance else { return best }
            nearTie = gap
            return wanted
        }
        // The common case, the expected token the plain greedy choice, costs a few scores.
        if confirmsGreedyChoice(wanted, in: scores) { return wanted }
        guard let before = Snapshot(chain, grammar: grammar) else { return choose(scores, context: context, at: index) }
        let chosen = choose(scores, context: context, at: index)
        guard !isExpected(chosen),
              let margin = Tolerance.margin(of: wanted, within: tolerance, choosing: { trial(before, scores, raising: wanted, by: $0) }),
              restore(before)
        else { return chosen }
        scores[Int(wanted)] += margin
        let token = choose(scores, context: nil, at: 0)
        if token == wanted { nearTie = margin }
        return token
    }

    /// What the sampler in state `state` chooses from `scores` with `token`'s score raised by
    /// `raise`; the chain's own state and the scores stay as they are.
    private func trial(_ state: Snapshot, _ scores: UnsafeMutablePointer<Float>, raising token: Int32, by raise: Float) -> Int32? {
        guard let (trialChain, trialGrammar) = state.copies() else { return nil }
        let (ownChain, ownGrammar) = (chain, grammar)
        (chain, grammar) = (trialChain, trialGrammar)
        defer {
            llama_sampler_free(trialChain)
            if let trialGrammar { llama_sampler_free(trialGrammar) }
            (chain, grammar) = (ownChain, ownGrammar)
        }
        var raised = Array(UnsafeBufferPointer(start: scores, count: vocabularySize))
        raised[Int(token)] += raise
        return raised.withUnsafeMutableBufferPointer { choose($0.baseAddress!, context: nil, at: 0) }
    }

    /// What teacher forcing (or the check of a drafted token) expects at the next step: a token,
    /// or the model's end (`nil`), and how far behind the sampler's choice it may be. A choice that
    /// spells the `upcoming` bytes otherwise (teacher forcing's recording, as text) is expected too.
    struct Expectation {
        let token: Int32?
        let tolerance: Double
        var upcoming: ArraySlice<UInt8> = []
    }
}
