import CLlama
import TideCore

/// A llama.cpp sampler chain built from generation parameters: the stages they turn on, in
/// llama.cpp's default order (``SamplerStages``), then the best token, a random draw or Mirostat.
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
///
/// The chain's other jobs live in files of their own, as extensions: the reply's grammar
/// (`ReplyGrammar.swift`, `ToolCallGrammar.swift`), rewind points (`RewindPoints.swift`) and
/// teacher forcing's tolerance (`ToleranceChoice.swift`); budget steering is ``BudgetSteerer``.
final class SamplerChain {
    /// llama.cpp's chain of the stages and the chooser.
    var chain: UnsafeMutablePointer<llama_sampler>
    /// The rewind points of the positions from ``firstPoint`` on, while ``keepsPoints``.
    var points: [RewindPoint] = []
    /// The reply position of the first kept point.
    var firstPoint = 0
    /// Whether a point is kept at each position (``keepRewindPoints()``).
    var keepsPoints = false
    /// The point to sample again at the next step, after a rewind.
    var resampling: RewindPoint?
    /// The most positions kept: a rewind reaches at most this many tokens back (each point holds
    /// a copy of the vocabulary's scores).
    static let maximumRewindPoints = 256
    /// Plain greedy decoding (no stage that could change the best token), which needs only the
    /// best logit: llama.cpp's sampler would first copy the whole vocabulary into a candidate array.
    let argmaxOnly: Bool
    /// Greedy decoding whose stages only lower scores (``SamplerStage/onlyLowers(_:)``): the best
    /// token before them is chosen whenever its score after them still beats the runner-up's
    /// before them, which a few scores tell (``confirmsGreedyChoice(_:in:)``).
    let greedyOverLoweringStages: Bool
    /// How many of the best scores hold every token the chain could choose
    /// (``graphCandidates(_:stages:model:)``); `nil` when no such count is much less than the vocabulary.
    let graphCandidates: Int?
    /// How many expected tokens were confirmed without sampling the vocabulary
    /// (``confirmsGreedyChoice(_:in:)``), with no copy of it or of the chain's state.
    private(set) var confirmedWithoutSampling = 0
    let vocabularySize: Int
    /// How many tokens before the reply the stages look at.
    private let history: Int

    /// The expectation of the next step, set just before it; each step consumes it.
    var expectation: Expectation?
    /// The margin by which the last step chose its expected token within the tolerance; `nil`
    /// when the token was the choice itself, or not chosen, or nothing was expected.
    var nearTie: Float?
    /// The grammar sampler of the reply's format, if any; it sees only tokens already chosen.
    var grammar: UnsafeMutablePointer<llama_sampler>?
    /// Keeps a reply under a format able to finish within `max-tokens`.
    var steerer: BudgetSteerer?

    /// Whether a format's grammar checks the sampled token before constraining every candidate.
    private let checksSampledTokenFirst: Bool
    /// The reply's tolerance (``GenerationParameters/tolerance``), for expectations.
    let tolerance: Double
    /// How many of the likeliest tokens each step's log-probability comes with; `nil` when the
    /// reply asks for none (``GenerationParameters/logprobs``).
    let logprobs: Int?
    /// The log-probability of the token the last step chose, when the reply asks for them.
    private(set) var lastLogprob: TokenLogprob?

    /// The chain for `parameters`; throws when llama.cpp refuses the format's grammar. Unless
    /// `checkingSampledTokenFirst` is off, the grammar only checks the sampled token at first;
    /// unless `steeringBudget` is off, a format's reply is steered to finish within `max-tokens`.
    /// Tools offered are called as `toolCalls` writes them.
    init(_ parameters: GenerationParameters, model: LlamaModel, toolCalls: any ToolCallReader, checkingSampledTokenFirst: Bool = true,
         steeringBudget: Bool = true, comparingTwoScores: Bool = true) throws {
        checksSampledTokenFirst = checkingSampledTokenFirst
        tolerance = parameters.tolerance
        logprobs = parameters.logprobs
        let stages = SamplerStages.stages(for: parameters)
        argmaxOnly = parameters.temperature == 0 && stages.isEmpty
        greedyOverLoweringStages = comparingTwoScores && parameters.temperature == 0 && !stages.isEmpty
            && stages.allSatisfy { $0.onlyLowers(parameters) }
        history = stages.map { $0.history(parameters) }.max() ?? 0
        graphCandidates = Self.graphCandidates(parameters, stages: stages, model: model)
        vocabularySize = model.facts.vocabularySize
        (grammar, steerer) = try Self.replyGrammar(parameters, model: model, reader: toolCalls, steeringBudget: steeringBudget)
        var chainParameters = llama_sampler_chain_default_params()
        chainParameters.no_perf = true
        chain = llama_sampler_chain_init(chainParameters)
        for stage in stages { add(try stage.sampler(parameters, model: model)) }
        for chooser in SamplerStages.choosers(for: parameters, model: model) { add(chooser) }
    }

    deinit {
        llama_sampler_free(chain)
        if let grammar { llama_sampler_free(grammar) }
    }

    /// Lets the penalties and DRY see the text that precedes the reply (as much of the prompt's
    /// tail as they look at). Its control tokens — turn markers, the end of a turn — are left
    /// out: penalising the end of the turns before would keep the reply from ending (with a
    /// penalty of 1.1, SmolLM2 then answered "What is the capital of France?" until --max-tokens
    /// instead of in 7 tokens).
    func accept(prompt: [Int32], model: LlamaModel) {
        for token in prompt.suffix(history) where !llama_vocab_is_control(model.vocab, token) && !llama_vocab_is_eog(model.vocab, token) {
            llama_sampler_accept(chain, token)
        }
    }

    /// Samples (and accepts) a token from `scores`, the logits of batch entry `index` of
    /// `context` after the hooks' adjustments; `nil` when the format allows none of the tokens
    /// left.
    func choose(_ scores: UnsafeMutablePointer<Float>, context: OpaquePointer?, at index: Int32) -> Int32? {
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

    /// Under ``greedyOverLoweringStages``, whether `wanted` is the token the chain chooses from
    /// `scores`, told without sampling the vocabulary: its score after the stages must beat the
    /// score after them of every other token that scored as much before them (the others only
    /// fell). Usually no other did, and two scores tell. The chain then accepts it, as sampling
    /// it would; otherwise nothing changes and the full rule decides.
    func confirmsGreedyChoice(_ wanted: Int32, in scores: UnsafeMutablePointer<Float>) -> Bool {
        guard greedyOverLoweringStages, grammar == nil else { return false }
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
    func decide(_ scores: UnsafeMutablePointer<Float>, context: OpaquePointer?, at index: Int32, model: LlamaModel,
                        adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        let expected = expectation
        expectation = nil
        nearTie = nil
        lastLogprob = nil
        if let adjustingLogits {
            let view = LlamaLogitsView(logits: scores, model: model)
            try adjustingLogits(view)
            guard view.hasCandidates else { return .everyTokenBanned }
        }
        // Read after the hooks and before sampling; the steerer only masks, leaving the chosen
        // token's score as it was.
        let distribution = logprobs.map { LogSoftmax(scores, count: vocabularySize, top: $0) }
        steerer?.restrict(scores, model: model)
        let token: Int32?
        // Choosing within the tolerance raises the expected token's score: its log-probability is
        // read from the score it had.
        var unraised: (token: Int32, logit: Float)?
        if let expected, expected.tolerance > 0, let wanted = expectedToken(expected, in: scores, model: model) {
            unraised = (wanted, scores[Int(wanted)])
            token = chooseWithin(expected.tolerance, of: wanted, scores, context: context, at: index,
                                 acceptingAnyEnd: expected.token == nil, upcoming: expected.upcoming, model: model)
        } else {
            token = choose(scores, context: context, at: index)
        }
        guard let token else { return .formatBlocked }
        lastLogprob = distribution?.scored(token, logit: unraised?.token == token ? unraised!.logit : scores[Int(token)], model: model)
        steerer?.accept(token, model: model)
        return outcome(of: token, model: model)
    }

    /// What choosing `token` makes of a step: the model's end, or the token and its bytes.
    func outcome(of token: Int32, model: LlamaModel) -> DecodedToken {
        if model.isEndOfGeneration(token) { return .endOfGeneration }
        return .token(id: token, bytes: model.tokenBytes(token))
    }

    /// How llama.cpp may choose the next token in its graph (``LlamaBatchEngine``), copying less
    /// than the scores: the best score alone under plain greedy decoding, or the
    /// ``graphCandidates`` best for the chain to choose among; `nil` when the step reads the scores
    /// (a format, budget, rewind point, resampling, expectation or log-probabilities) or the chain
    /// could choose a token outside any such few.
    var graphChoice: GraphChoice? {
        guard grammar == nil && steerer == nil && !keepsPoints && !isResampling && expectation == nil && logprobs == nil else { return nil }
        return argmaxOnly ? .best : graphCandidates.map { .candidates($0) }
    }

    /// How many of the best scores hold every token a chain for `parameters` could choose, so
    /// that choosing among only those chooses as among all: the chain cuts to `k` tokens (top-k;
    /// at temperature 0, the best one) after stages that each lower the scores of at most `m`
    /// tokens, each by what that token alone decides (``SamplerStage/onlyLowers(_:)``,
    /// ``SamplerStage/changesAtMost(_:model:)``). A token outside the `k + Σm` best before those
    /// stages is beaten by `k` of them that no stage lowered, so it is not among the `k` best
    /// after them; the stages after the cut (typical-p, top-p, min-p, XTC, the temperature, the
    /// draw) see only the `k` it kept. Tokens of exactly equal scores may come in another order,
    /// so a choice among equals could differ. `nil` where the chain has no such cut (top-k off,
    /// Mirostat, top-n-σ, a raising bias or penalty) or the count is not under a quarter of the
    /// vocabulary.
    static func graphCandidates(_ parameters: GenerationParameters, stages: [any SamplerStage.Type], model: LlamaModel) -> Int? {
        guard parameters.mirostat == 0 else { return nil }
        var count: Int
        let before: ArraySlice<any SamplerStage.Type>
        if parameters.temperature == 0 {
            (count, before) = (1, stages[...])
        } else {
            guard let cut = stages.firstIndex(where: { ObjectIdentifier($0) == ObjectIdentifier(TopKStage.self) }) else { return nil }
            (count, before) = (parameters.topK, stages[..<cut])
        }
        for stage in before {
            guard stage.onlyLowers(parameters), let changed = stage.changesAtMost(parameters, model: model) else { return nil }
            count += changed
        }
        return count * 4 <= model.facts.vocabularySize ? count : nil
    }

    /// Chooses (and accepts) the next token among the candidates llama.cpp's graph kept for batch
    /// entry `index` of `context` (``GraphChoice/candidates(_:)``), as among every token's scores;
    /// among those where the graph kept none.
    func chooseAmongGraphCandidates(_ context: OpaquePointer, at index: Int32, model: LlamaModel) -> DecodedToken {
        nearTie = nil
        lastLogprob = nil
        return outcome(of: llama_sampler_sample(chain, context, index), model: model)
    }

    /// How the reply's format was steered to finish within `max-tokens`; `nil` when it was not.
    var steering: BudgetSteering? { steerer?.outcome }

    private func add(_ sampler: UnsafeMutablePointer<llama_sampler>?) {
        llama_sampler_chain_add(chain, sampler)
    }
}
