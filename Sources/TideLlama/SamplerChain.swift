import CLlama
import TideCore

/// A reply's llama.cpp sampler chain and the grammar of its format: what chooses a token from a
/// row of scores as the reply's ``SamplingPlan`` says — the stages it turns on, in llama.cpp's
/// default order (``SamplerStages``), then the best token, a random draw or Mirostat.
///
/// A reply format adds llama.cpp's grammar sampler, after the hooks' adjustments. Constraining
/// the whole vocabulary costs a walk of the grammar per candidate, so the chain first samples
/// without it and only checks the chosen token. Under greedy decoding, when the grammar refuses
/// it, the next best candidates are checked in order (the first allowed is the best allowed),
/// and only past ``greedyChecks`` of them is every candidate constrained: the token is exactly
/// the best the grammar allows. Under a random draw a refused token is drawn again from the
/// constrained candidates (as llama.cpp's own tools do), which is exact when no top-k, top-p or
/// min-p cut applies (the second draw renormalises over the allowed tokens).
///
/// What a step does besides choosing — rewind points, the tolerance, log-probabilities, budget
/// steering — is a ``StepPolicy`` that ``ReplySampler`` composes with the chain.
final class SamplerChain {
    /// How the reply's tokens are chosen.
    let plan: SamplingPlan
    /// llama.cpp's chain of the stages and the chooser.
    private(set) var chain: UnsafeMutablePointer<llama_sampler>
    /// The grammar sampler of the reply's format, if any; it sees only tokens already chosen.
    private(set) var grammar: UnsafeMutablePointer<llama_sampler>?
    /// Whether a format's grammar checks the sampled token before constraining every candidate.
    private let checksSampledTokenFirst: Bool
    /// How many expected tokens were confirmed without sampling the vocabulary
    /// (``confirmsGreedyChoice(_:in:)``), with no copy of it or of the chain's state.
    private(set) var confirmedWithoutSampling = 0

    /// The chain `plan` calls for, with `grammar` (which it frees from then on, even when it
    /// throws); throws when a stage refuses a value only the model can check. Unless
    /// `checkingSampledTokenFirst` is off, the grammar only checks the sampled token at first.
    init(_ plan: SamplingPlan, parameters: GenerationParameters, model: LlamaModel, grammar: UnsafeMutablePointer<llama_sampler>?,
         checkingSampledTokenFirst: Bool = true) throws
    {
        do {
            chain = try plan.makeChain(parameters, model: model)
        } catch {
            if let grammar { llama_sampler_free(grammar) }
            throw error
        }
        self.plan = plan
        self.grammar = grammar
        checksSampledTokenFirst = checkingSampledTokenFirst
    }

    deinit {
        llama_sampler_free(chain)
        if let grammar { llama_sampler_free(grammar) }
    }

    private var vocabularySize: Int { plan.vocabularySize }

    /// Lets the penalties and DRY see the text that precedes the reply (as much of the prompt's
    /// tail as they look at). Its control tokens — turn markers, the end of a turn — are left
    /// out: penalising the end of the turns before would keep the reply from ending (with a
    /// penalty of 1.1, SmolLM2 then answered "What is the capital of France?" until --max-tokens
    /// instead of in 7 tokens).
    func accept(prompt: [Int32], model: LlamaModel) {
        for token in prompt.suffix(plan.history) where !llama_vocab_is_control(model.vocab, token) && !llama_vocab_is_eog(model.vocab, token) {
            llama_sampler_accept(chain, token)
        }
    }

    /// Samples (and accepts) a token from `scores`, the logits of batch entry `index` of
    /// `context` after the hooks' adjustments; `nil` when the format allows none of the tokens
    /// left.
    func choose(_ scores: UnsafeMutablePointer<Float>, context: OpaquePointer?, at index: Int32) -> Int32? {
        guard let grammar else {
            if plan.chooser == .best { return argmax(scores) }
            if let context { return llama_sampler_sample(chain, context, index) }
            return sampleWithChain(scores, constrained: false)
        }
        guard let token = checksSampledTokenFirst ? firstAllowed(scores) : sampleWithChain(scores, constrained: true) else {
            return nil
        }
        llama_sampler_accept(grammar, token)
        return token
    }

    /// Chooses (and accepts) the next token among the candidates llama.cpp's graph kept for batch
    /// entry `index` of `context` (``GraphChoice/candidates(_:)``), as among every token's scores;
    /// among those where the graph kept none.
    func chooseAmongGraphCandidates(_ context: OpaquePointer, at index: Int32) -> Int32 {
        llama_sampler_sample(chain, context, index)
    }

    /// Greedy decoding asks the grammar about the best candidates in order, since the first
    /// allowed is the best allowed; up to this many before constraining them all.
    static let greedyChecks = 128

    /// The token sampled from `scores` under the grammar, checking the sampled token first (and,
    /// under greedy decoding, the next best ones) and constraining every candidate only when
    /// those are refused; `nil` when the grammar allows none of the tokens left.
    private func firstAllowed(_ scores: UnsafeMutablePointer<Float>) -> Int32? {
        if plan.chooser == .best {
            let best = argmax(scores)
            if allows(best, score: scores[Int(best)]) { return best }
            let next = TopScores.best(Self.greedyChecks, of: scores, count: vocabularySize)
            if let allowed = next.first(where: { $0.id != best && allows($0.id, score: $0.logit) }) { return allowed.id }
            return sampleWithChain(scores, constrained: true)
        }
        guard let first = sampleWithChain(scores, constrained: false, accepting: false) else { return nil }
        guard allows(first, score: scores[Int(first)]) else { return sampleWithChain(scores, constrained: true) }
        llama_sampler_accept(chain, first)
        return first
    }

    /// Whether the format's grammar allows `token` next.
    private func allows(_ token: Int32, score: Float) -> Bool {
        guard score > -Float.infinity else { return false }
        var candidate = llama_token_data(id: token, logit: score, p: 0)
        return withUnsafeMutablePointer(to: &candidate) { pointer in
            var array = llama_token_data_array(data: pointer, size: 1, selected: -1, sorted: false)
            llama_sampler_apply(grammar, &array)
            return pointer.pointee.logit > -Float.infinity
        }
    }

    /// Runs the chain over every token's score (first narrowed to what the grammar allows, when
    /// `constrained`), accepting the token unless told not to; `nil` when nothing is allowed.
    private func sampleWithChain(_ scores: UnsafeMutablePointer<Float>, constrained: Bool, accepting: Bool = true) -> Int32? {
        var candidates = (0..<vocabularySize).map { llama_token_data(id: Int32($0), logit: scores[$0], p: 0) }
        return candidates.withUnsafeMutableBufferPointer { data -> Int32? in
            var array = llama_token_data_array(data: data.baseAddress, size: data.count, selected: -1, sorted: false)
            if constrained {
                llama_sampler_apply(grammar, &array)
                guard (0..<array.size).contains(where: { array.data[$0].logit > -Float.infinity }) else { return nil }
            }
            if plan.chooser == .best {
                return (0..<array.size).max { array.data[$0].logit < array.data[$1].logit }.map { array.data[$0].id }
            }
            llama_sampler_apply(chain, &array)
            let chosen = array.data[Int(array.selected)].id
            if accepting { llama_sampler_accept(chain, chosen) }
            return chosen
        }
    }

    /// Under ``SamplingPlan/Chooser/bestAfterLoweringStages``, whether `wanted` is the token the
    /// chain chooses from `scores`, told without sampling the vocabulary: its score after the
    /// stages must beat the score after them of every other token that scored as much before
    /// them (the others only fell). Usually no other did, and two scores tell. The chain then
    /// accepts it, as sampling it would; otherwise nothing changes and the full rule decides.
    func confirmsGreedyChoice(_ wanted: Int32, in scores: UnsafeMutablePointer<Float>) -> Bool {
        guard plan.chooser == .bestAfterLoweringStages, grammar == nil else { return false }
        let staged = afterStages([wanted], scores)[0]
        guard staged > -.infinity,
              let rivals = TopScores.tokens(of: scores, count: vocabularySize, atLeast: staged, limit: Self.greedyChecks)
        else { return false }
        let others = rivals.filter { $0 != wanted }
        // Equal scores go to the lower id, as llama.cpp's greedy choice.
        guard zip(others, afterStages(others, scores)).allSatisfy({ $1 < staged || ($1 == staged && $0 > wanted) }) else { return false }
        llama_sampler_accept(chain, wanted)
        confirmedWithoutSampling += 1
        return true
    }

    /// The scores of `tokens` after the chain's stages, each as over the whole vocabulary (which
    /// holds for stages that only lower scores, each token's by what that token alone decides).
    private func afterStages(_ tokens: [Int32], _ scores: UnsafePointer<Float>) -> [Float] {
        var candidates = tokens.map { llama_token_data(id: $0, logit: scores[Int($0)], p: 0) }
        guard !candidates.isEmpty else { return [] }
        return candidates.withUnsafeMutableBufferPointer { data in
            var array = llama_token_data_array(data: data.baseAddress, size: data.count, selected: -1, sorted: false)
            llama_sampler_apply(chain, &array)
            precondition(array.size == data.count && array.data == data.baseAddress, "stages that only lower scores keep every candidate in place")
            return data.map(\.logit)
        }
    }

    /// The token with the highest score (the lowest id among equals).
    func argmax(_ scores: UnsafePointer<Float>) -> Int32 {
        TopScores.best(of: scores, count: vocabularySize).id
    }

    /// Copies of the chain's and the grammar's states; `nil` when llama.cpp cannot copy them.
    func snapshot() -> Snapshot? {
        Snapshot(chain, grammar: grammar)
    }

    /// Puts the states of `snapshot` in place of the chain's and the grammar's; `false` (and
    /// nothing changed) when they cannot be copied.
    func restore(_ snapshot: Snapshot) -> Bool {
        guard let (restoredChain, restoredGrammar) = snapshot.copies() else { return false }
        llama_sampler_free(chain)
        chain = restoredChain
        if let grammar { llama_sampler_free(grammar) }
        grammar = restoredGrammar
        return true
    }

    /// What the chain in state `state` chooses from `scores` with `token`'s score raised by
    /// `raise`; the chain's own state and the scores stay as they are. `nil` when the state
    /// cannot be copied, or nothing is allowed.
    func choice(from state: Snapshot, _ scores: UnsafeMutablePointer<Float>, raising token: Int32, by raise: Float) -> Int32? {
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
}
