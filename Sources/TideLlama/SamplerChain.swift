import CLlama
import TideCore

/// A llama.cpp sampler chain built from generation parameters, in llama.cpp's usual order:
/// repetition penalty, then greedy, or top-k → top-p → min-p → temperature → random draw.
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
/// When a hook may rewind, the chain keeps a ``RewindPoint`` per reply position (the scores
/// before hooks and its own state before sampling), so that a position can be sampled again
/// exactly as it was first sampled, with no decode.
final class SamplerChain {
    private var chain: UnsafeMutablePointer<llama_sampler>
    /// The rewind points of the positions from ``firstPoint`` on, while ``keepsPoints``.
    private var points: [RewindPoint] = []
    private var firstPoint = 0
    private var keepsPoints = false
    /// The point to sample again at the next step, after a rewind.
    private var resampling: RewindPoint?
    /// The most positions kept: a rewind reaches at most this many tokens back (each point holds
    /// a copy of the vocabulary's scores).
    static let maximumRewindPoints = 256
    /// Plain greedy decoding (no penalties), which needs only the best logit: llama.cpp's
    /// sampler would first copy the whole vocabulary into a candidate array.
    private let argmaxOnly: Bool
    private let vocabularySize: Int

    /// The grammar sampler of the reply's format, if any; it sees only tokens already chosen.
    private var grammar: UnsafeMutablePointer<llama_sampler>?
    /// Keeps a reply under a format able to finish within `max-tokens`.
    private var steerer: BudgetSteerer?

    /// Whether a format's grammar checks the sampled token before constraining every candidate.
    private let checksSampledTokenFirst: Bool
    /// The reply's tolerance (``GenerationParameters/tolerance``), for expectations.
    let tolerance: Double

    /// The chain for `parameters`; throws when llama.cpp refuses the format's grammar. Unless
    /// `checkingSampledTokenFirst` is off, the grammar only checks the sampled token at first;
    /// unless `steeringBudget` is off, a format's reply is steered to finish within `max-tokens`.
    /// Tools offered are called in `template`'s family's format.
    init(_ parameters: GenerationParameters, model: LlamaModel, template: ChatTemplate, checkingSampledTokenFirst: Bool = true,
         steeringBudget: Bool = true) throws {
        checksSampledTokenFirst = checkingSampledTokenFirst
        tolerance = parameters.tolerance
        argmaxOnly = parameters.temperature == 0 && parameters.repeatPenalty == 1
        vocabularySize = model.facts.vocabularySize
        if parameters.offersTools {
            let (sampler, text) = try Self.toolGrammar(parameters, reader: model.toolCallReader(template: template), model: model)
            grammar = sampler
            // A call required from the first token is steered to close within max-tokens, as a format is.
            if steeringBudget, let text { steerer = BudgetSteerer(grammar: text, maxTokens: parameters.maxTokens) }
        } else if let format = parameters.format {
            guard let grammar = llama_sampler_init_grammar(model.vocab, format.grammar, "root") else {
                throw LlamaError.grammarRefused(format.description)
            }
            self.grammar = grammar
            if steeringBudget { steerer = BudgetSteerer(grammar: format.grammar, maxTokens: parameters.maxTokens) }
        }
        var chainParameters = llama_sampler_chain_default_params()
        chainParameters.no_perf = true
        chain = llama_sampler_chain_init(chainParameters)
        if parameters.repeatPenalty != 1 {
            add(llama_sampler_init_penalties(Int32(vocabularySize), Int32(parameters.repeatLastN),
                                             Float(parameters.repeatPenalty), 0, 0))
        }
        if parameters.temperature == 0 {
            add(llama_sampler_init_greedy())
            return
        }
        if parameters.topK > 0 { add(llama_sampler_init_top_k(Int32(parameters.topK))) }
        if parameters.topP < 1 { add(llama_sampler_init_top_p(Float(parameters.topP), 1)) }
        if parameters.minP > 0 { add(llama_sampler_init_min_p(Float(parameters.minP), 1)) }
        add(llama_sampler_init_temp(Float(parameters.temperature)))
        // llama.cpp draws a random seed for LLAMA_DEFAULT_SEED (0xFFFFFFFF).
        add(llama_sampler_init_dist(parameters.seed ?? UInt32.max))
    }

    /// The grammar of the tool calls: from the first token when a call is required (with its
    /// text, for steering), else lazily, from the calls' marker on.
    private static func toolGrammar(_ parameters: GenerationParameters, reader: any ToolCallReader, model: LlamaModel)
        throws(ToolsUnavailable) -> (UnsafeMutablePointer<llama_sampler>, String?)
    {
        let text: String
        do {
            text = try reader.callGrammar(for: parameters.tools, choice: parameters.toolChoice, parallel: parameters.parallelToolCalls)
        } catch {
            throw .unenforceable(error.description)
        }
        let sampler: UnsafeMutablePointer<llama_sampler>?
        switch parameters.toolChoice {
        case .required, .named:
            sampler = llama_sampler_init_grammar(model.vocab, text, "root")
        case .auto, .none:
            sampler = reader.lazyTrigger.withCString { trigger in
                var patterns: [UnsafePointer<CChar>?] = [trigger]
                return llama_sampler_init_grammar_lazy_patterns(model.vocab, text, "root", &patterns, 1, nil, 0)
            }
        }
        guard let sampler else { throw .unenforceable("llama.cpp refused the calls' grammar; its log above says where") }
        switch parameters.toolChoice {
        case .required, .named: return (sampler, text)
        case .auto, .none: return (sampler, nil)
        }
    }

    deinit {
        llama_sampler_free(chain)
        if let grammar { llama_sampler_free(grammar) }
    }

    /// Copies of the chain's and the grammar's states, to go back to.
    final class Snapshot {
        private let sampler: UnsafeMutablePointer<llama_sampler>
        private let grammar: UnsafeMutablePointer<llama_sampler>?

        /// Copies of `chain` and `grammar`; `nil` when llama.cpp cannot copy them.
        init?(_ chain: UnsafeMutablePointer<llama_sampler>, grammar: UnsafeMutablePointer<llama_sampler>?) {
            guard let sampler = llama_sampler_clone(chain) else { return nil }
            let copy = grammar.flatMap { llama_sampler_clone($0) }
            if grammar != nil, copy == nil {
                llama_sampler_free(sampler)
                return nil
            }
            self.sampler = sampler
            self.grammar = copy
        }

        deinit {
            llama_sampler_free(sampler)
            if let grammar { llama_sampler_free(grammar) }
        }

        /// Fresh copies of the saved states, the snapshot staying as it is; `nil` when llama.cpp
        /// cannot copy them.
        func copies() -> (chain: UnsafeMutablePointer<llama_sampler>, grammar: UnsafeMutablePointer<llama_sampler>?)? {
            guard let chain = llama_sampler_clone(sampler) else { return nil }
            guard let grammar else { return (chain, nil) }
            guard let restored = llama_sampler_clone(grammar) else {
                llama_sampler_free(chain)
                return nil
            }
            return (chain, restored)
        }
    }

    /// What sampling a reply position again needs: the scores the model gave it, before any
    /// hook, and the sampler's and the grammar's states before it was sampled.
    struct RewindPoint {
        let logits: [Float]
        let state: Snapshot
        let steerer: BudgetSteerer?
    }

    /// Puts the states of `snapshot` in place of the chain's and the grammar's; `false` (and
    /// nothing changed) when they cannot be copied.
    private func restore(_ snapshot: Snapshot) -> Bool {
        guard let (restoredChain, restoredGrammar) = snapshot.copies() else { return false }
        llama_sampler_free(chain)
        chain = restoredChain
        if let grammar { llama_sampler_free(grammar) }
        grammar = restoredGrammar
        return true
    }

    /// Lets the repetition penalty see the text that precedes the reply (the prompt's tail). Its
    /// control tokens — turn markers, the end of a turn — are left out: penalising the end of
    /// the turns before would keep the reply from ending (with a penalty of 1.1, SmolLM2 then
    /// answered "What is the capital of France?" until --max-tokens instead of in 7 tokens).
    func accept(promptTail tokens: some Sequence<Int32>, model: LlamaModel) {
        for token in tokens where !llama_vocab_is_control(model.vocab, token) && !llama_vocab_is_eog(model.vocab, token) {
            llama_sampler_accept(chain, token)
        }
    }

    /// Keeps a rewind point at every position from now on.
    func keepRewindPoints() {
        keepsPoints = true
    }

    /// Goes back to reply position `position`: the sampler's state is what it was before that
    /// position was sampled, and the next step samples it again from its saved scores. Returns
    /// false when no point is kept for it.
    func rewind(to position: Int) -> Bool {
        let offset = position - firstPoint
        guard canRewind(to: position), restore(points[offset].state) else { return false }
        steerer = points[offset].steerer
        points.removeSubrange((offset + 1)...)
        resampling = points[offset]
        return true
    }

    /// Whether a point is kept for `position`.
    func canRewind(to position: Int) -> Bool {
        keepsPoints && position >= firstPoint && position - firstPoint < points.count
    }

    /// Forgets the rewind points of the positions before `position`.
    func forgetRewindPoints(before position: Int) {
        let count = min(max(position - firstPoint, 0), points.count)
        points.removeFirst(count)
        firstPoint += count
    }

    /// Samples (and accepts) a token from `scores`, the logits of batch entry `index` of
    /// `context` after the hooks' adjustments; `nil` when the format allows none of the tokens
    /// left.
    private func choose(_ scores: UnsafeMutablePointer<Float>, context: OpaquePointer?, at index: Int32) -> Int32? {
        guard let grammar else {
            if argmaxOnly { return argmax(scores) }
            if let context { return llama_sampler_sample(chain, context, index) }
            return sampleWithChain(scores, constrained: false)
        }
        guard let token = checksSampledTokenFirst ? firstAllowed(scores) : sampleWithChain(scores, constrained: true) else {
            return nil
        }
        llama_sampler_accept(grammar, token)
        return token
    }

    /// Greedy decoding asks the grammar about the best candidates in order, since the first
    /// allowed is the best allowed; up to this many before constraining them all.
    static let greedyChecks = 128

    /// The token sampled from `scores` under the grammar, checking the sampled token first (and,
    /// under greedy decoding, the next best ones) and constraining every candidate only when
    /// those are refused; `nil` when the grammar allows none of the tokens left.
    private func firstAllowed(_ scores: UnsafeMutablePointer<Float>) -> Int32? {
        if argmaxOnly {
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
            if argmaxOnly {
                return (0..<array.size).max { array.data[$0].logit < array.data[$1].logit }.map { array.data[$0].id }
            }
            llama_sampler_apply(chain, &array)
            let chosen = array.data[Int(array.selected)].id
            if accepting { llama_sampler_accept(chain, chosen) }
            return chosen
        }
    }

    /// The token with the highest score.
    private func argmax(_ scores: UnsafePointer<Float>) -> Int32 {
        var best = 0
        for token in 1..<vocabularySize where scores[token] > scores[best] { best = token }
        return Int32(best)
    }

    /// One decoding step from the logits of batch entry `index`: the hooks' adjustments, then
    /// the sampled token, the model's end, or why nothing could be sampled (hooks banned every
    /// token, or every token the format allows).
    func step(_ context: OpaquePointer, at index: Int32 = -1, model: LlamaModel,
              adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        if isResampling { return try resample(model: model, adjustingLogits: adjustingLogits) }
        guard let logits = llama_get_logits_ith(context, index) else {
            preconditionFailure("a step follows a decode that kept the logits of entry \(index)")
        }
        return try step(logits, context: context, at: index, model: model, adjustingLogits: adjustingLogits)
    }

    /// One decoding step from `scores`, a position's logits (entry `index` of `context`, when they
    /// are still there; else a copy), as ``step(_:at:model:adjustingLogits:)``.
    func step(_ scores: UnsafeMutablePointer<Float>, context: OpaquePointer? = nil, at index: Int32 = 0, model: LlamaModel,
              adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        if keepsPoints {
            // Points stay aligned with positions: one that cannot be kept ends what rewinds can reach.
            if let state = Snapshot(chain, grammar: grammar) {
                points.append(RewindPoint(logits: Array(UnsafeBufferPointer(start: scores, count: vocabularySize)), state: state,
                                          steerer: steerer))
                if points.count > Self.maximumRewindPoints { forgetRewindPoints(before: firstPoint + 1) }
            } else {
                forgetRewindPoints(before: firstPoint + points.count + 1)
            }
        }
        return try decide(scores, context: context, at: index, model: model, adjustingLogits: adjustingLogits)
    }

    /// The hooks' adjustments to `scores` (entry `index` of `context`, if they are still there),
    /// then the sampled token, the model's end, or why nothing could be sampled. With an
    /// ``expectation``, the expected token is chosen when the sampler chooses it within the
    /// tolerance (``Tolerance``), and ``nearTie`` says by what margin.
    private func decide(_ scores: UnsafeMutablePointer<Float>, context: OpaquePointer?, at index: Int32, model: LlamaModel,
                        adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        let expected = expectation
        expectation = nil
        nearTie = nil
        if let adjustingLogits {
            let view = LlamaLogitsView(logits: scores, model: model)
            try adjustingLogits(view)
            guard view.hasCandidates else { return .everyTokenBanned }
        }
        steerer?.restrict(scores, model: model)
        let token: Int32?
        if let expected, expected.tolerance > 0, let wanted = expectedToken(expected, in: scores, model: model) {
            token = chooseWithin(expected.tolerance, of: wanted, scores, context: context, at: index,
                                 acceptingAnyEnd: expected.token == nil, upcoming: expected.upcoming, model: model)
        } else {
            token = choose(scores, context: context, at: index)
        }
        guard let token else { return .formatBlocked }
        steerer?.accept(token, model: model)
        if model.isEndOfGeneration(token) { return .endOfGeneration }
        return .token(id: token, bytes: model.tokenBytes(token))
    }

    /// The token teacher forcing (or a draft check) expects at the next position: the expected
    /// one, or, for the model's end, its best-scored end-of-generation token; `nil` when the hooks
    /// banned it.
    private func expectedToken(_ expected: Expectation, in scores: UnsafeMutablePointer<Float>, model: LlamaModel) -> Int32? {
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
    private func chooseWithin(_ tolerance: Double, of wanted: Int32, _ scores: UnsafeMutablePointer<Float>,
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

    /// The expectation of the next step, set just before it; each step consumes it.
    var expectation: Expectation?
    /// The margin by which the last step chose its expected token within the tolerance; `nil`
    /// when the token was the choice itself, or not chosen, or nothing was expected.
    private(set) var nearTie: Float?

    /// How the reply's format was steered to finish within `max-tokens`; `nil` when it was not.
    var steering: BudgetSteering? { steerer?.outcome }

    /// Whether the next step samples a rewound position again (and needs no decode).
    var isResampling: Bool { resampling != nil }

    /// Samples the rewound position again, from its saved scores.
    func resample(model: LlamaModel, adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken {
        guard let point = resampling else { preconditionFailure("resample() follows rewind(to:)") }
        resampling = nil
        var logits = point.logits
        return try logits.withUnsafeMutableBufferPointer { buffer in
            try decide(buffer.baseAddress!, context: nil, at: 0, model: model, adjustingLogits: adjustingLogits)
        }
    }

    private func add(_ sampler: UnsafeMutablePointer<llama_sampler>?) {
        llama_sampler_chain_add(chain, sampler)
    }
}
