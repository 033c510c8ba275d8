import TideCore

/// The per-step policy of teacher forcing's tolerance: the expected token is chosen when the sampler chooses it with its score raised by at most the
/// tolerance (``Tolerance``).
final class ToleranceChoice: StepPolicy {
    /// What teacher forcing expects at the next step: a token,
    /// or the model's end (`nil`), and how far behind the sampler's choice it may be. A choice that
    /// spells the `upcoming` bytes otherwise (teacher forcing's recording, as text) is expected too.
    struct Expectation {
        let token: Int32?
        let tolerance: Double
        var upcoming: ArraySlice<UInt8> = []
    }

    private let chain: SamplerChain
    /// The expectation of the next step, set just before it; each step consumes it.
    var expectation: Expectation?
    /// The expectation of the step in progress.
    private var current: Expectation?
    /// The margin by which the last step chose its expected token within the tolerance; `nil`
    /// when the token was the choice itself, or not chosen, or nothing was expected.
    private(set) var nearTie: Float?

    init(chain: SamplerChain) {
        self.chain = chain
    }

    var readsScores: Bool { expectation != nil }

    func stepBegins(_ scores: UnsafeMutablePointer<Float>, isNewPosition: Bool) {
        current = expectation
        expectation = nil
        nearTie = nil
    }

    /// The token the step in progress expects in `scores`, within a tolerance above 0: the
    /// expected one, or, for the model's end, its best-scored end-of-generation token; `nil`
    /// when nothing is expected or the hooks banned it.
    func expectedToken(in scores: UnsafeMutablePointer<Float>, model: LlamaModel) -> Int32? {
        guard let current, current.tolerance > 0 else { return nil }
        let token = current.token ?? model.endOfGenerationTokens.max { scores[Int($0)] < scores[Int($1)] }
        guard let token, model.isValidToken(token), scores[Int(token)] > -.infinity else { return nil }
        return token
    }

    /// Samples from `scores` as the chain does; when that is not `wanted` (nor, for the model's
    /// end, another of its end tokens, nor a token spelling the upcoming bytes otherwise), and
    /// the chain, back in its state before, chooses `wanted` with its score raised by at most
    /// the tolerance, samples again from there with the least such raise (to a bisection's
    /// precision), so that its state is that of having chosen `wanted`.
    func choose(_ wanted: Int32, from scores: UnsafeMutablePointer<Float>, context: OpaquePointer?, at index: Int32,
                model: LlamaModel) -> Int32?
    {
        guard let current else { preconditionFailure("a choice within the tolerance follows expectedToken(in:model:)") }
        let isExpected = { (token: Int32?) in
            guard let token else { return false }
            if token == wanted || (current.token == nil && model.isEndOfGeneration(token)) { return true }
            let spelled = model.tokenBytes(token)
            return !spelled.isEmpty && current.upcoming.starts(with: spelled)
        }
        // Plain greedy decoding keeps no state to go back to: the margin is the gap to the best score.
        if chain.plan.chooser == .best, chain.grammar == nil {
            let best = chain.argmax(scores)
            let gap = scores[Int(best)] - scores[Int(wanted)]
            guard !isExpected(best), Double(gap) <= current.tolerance else { return best }
            nearTie = gap
            return wanted
        }
        // The common case, the expected token the plain greedy choice, costs a few scores.
        if chain.confirmsGreedyChoice(wanted, in: scores) { return wanted }
        guard let before = chain.snapshot() else { return chain.choose(scores, context: context, at: index) }
        let chosen = chain.choose(scores, context: context, at: index)
        guard !isExpected(chosen),
              let margin = Tolerance.margin(of: wanted, within: current.tolerance,
                                            choosing: { chain.choice(from: before, scores, raising: wanted, by: $0) }),
              chain.restore(before)
        else { return chosen }
        scores[Int(wanted)] += margin
        let token = chain.choose(scores, context: nil, at: 0)
        if token == wanted { nearTie = margin }
        return token
    }
}
