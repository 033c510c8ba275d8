import CLlama
import TideCore

/// Samples a reply's steps: its ``SamplingPlan``, made once when the reply starts, the
/// ``SamplerChain`` that chooses each token, and the per-step policies (``StepPolicy``) composed
/// around the choice — rewind points, the tolerance, log-probabilities, budget steering.
final class ReplySampler {
    /// How the reply's tokens are chosen.
    let plan: SamplingPlan
    /// What chooses each token.
    let chain: SamplerChain
    /// The rewind points a hook's rewind goes back to.
    let rewinds: RewindPoints
    /// What teacher forcing or a draft's check expects at the next step.
    let tolerance: ToleranceChoice
    private let budget: FormatBudget?
    private let logprobReading: LogprobReading?
    /// The policies, in the order each step calls them: the log-probabilities are read before the
    /// budget masks the scores.
    private let policies: [any StepPolicy]

    /// The sampler for `parameters`; throws when llama.cpp refuses the format's grammar or a stage
    /// a value. Unless `checkingSampledTokenFirst` is off, the grammar only checks the sampled
    /// token at first; unless `steeringBudget` is off, a format's reply is steered to finish within
    /// `max-tokens`; unless `comparingTwoScores` is off, a greedy choice over stages that only
    /// lower scores is confirmed by a few scores where it can be. Tools offered are called as
    /// `toolCalls` writes them.
    init(_ parameters: GenerationParameters, model: LlamaModel, toolCalls: any ToolCallReader, checkingSampledTokenFirst: Bool = true,
         steeringBudget: Bool = true, comparingTwoScores: Bool = true) throws {
        let plan = SamplingPlan(parameters, model: model, comparingTwoScores: comparingTwoScores)
        self.plan = plan
        let (grammar, steerer) = try SamplerChain.replyGrammar(parameters, model: model, reader: toolCalls, steeringBudget: steeringBudget)
        chain = try SamplerChain(plan, parameters: parameters, model: model, grammar: grammar, checkingSampledTokenFirst: checkingSampledTokenFirst)
        let budget = steerer.map(FormatBudget.init)
        self.budget = budget
        logprobReading = plan.logprobs.map { LogprobReading(top: $0, vocabularySize: plan.vocabularySize) }
        rewinds = RewindPoints(chain: chain, budget: budget)
        tolerance = ToleranceChoice(chain: chain)
        let listed: [(any StepPolicy)?] = [rewinds, tolerance, logprobReading, budget]
        policies = listed.compactMap { $0 }
    }

    /// How the reply's format was steered to finish within `max-tokens`; `nil` when it was not.
    var steering: BudgetSteering? { budget?.steerer.outcome }

    /// The log-probability of the token the last step chose, when the reply asks for them.
    var lastLogprob: TokenLogprob? { logprobReading?.lastLogprob }

    /// One decoding step from the logits of batch entry `index`: the hooks' adjustments, then
    /// the sampled token, the model's end, or why nothing could be sampled (hooks banned every
    /// token, or every token the format allows).
    func step(_ context: OpaquePointer, at index: Int32 = -1, model: LlamaModel,
              adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        if rewinds.isResampling { return try resample(model: model, adjustingLogits: adjustingLogits) }
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
        try sample(scores, context: context, at: index, isNewPosition: true, model: model, adjustingLogits: adjustingLogits)
    }

    /// Samples the rewound position again, from its saved scores (``RewindPoints/rewind(to:)``).
    func resample(model: LlamaModel, adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken {
        guard var logits = rewinds.takeResampledScores() else { preconditionFailure("resample() follows a rewind") }
        return try logits.withUnsafeMutableBufferPointer { buffer in
            try sample(buffer.baseAddress!, context: nil, at: 0, isNewPosition: false, model: model, adjustingLogits: adjustingLogits)
        }
    }

    /// The hooks' adjustments to `scores` (entry `index` of `context`, if they are still there;
    /// a new position's, or a rewound one's sampled again), then the sampled token, the model's end, or why nothing could be sampled. With an
    /// expectation (``ToleranceChoice``), the expected token is chosen when the sampler chooses it
    /// within the tolerance.
    private func sample(_ scores: UnsafeMutablePointer<Float>, context: OpaquePointer?, at index: Int32, isNewPosition: Bool,
                model: LlamaModel, adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        for policy in policies { policy.stepBegins(scores, isNewPosition: isNewPosition) }
        if let adjustingLogits {
            let view = LlamaLogitsView(logits: scores, model: model)
            try adjustingLogits(view)
            guard view.hasCandidates else { return .everyTokenBanned }
        }
        for policy in policies { policy.choosing(from: scores, model: model) }
        let chosen: Int32?
        // Choosing within the tolerance raises the expected token's score: the policies are told
        // the score it had.
        var unraised: (token: Int32, logit: Float)?
        if let wanted = tolerance.expectedToken(in: scores, model: model) {
            unraised = (wanted, scores[Int(wanted)])
            chosen = tolerance.choose(wanted, from: scores, context: context, at: index, model: model)
        } else {
            chosen = chain.choose(scores, context: context, at: index)
        }
        guard let token = chosen else { return .formatBlocked }
        let score = unraised?.token == token ? unraised!.logit : scores[Int(token)]
        for policy in policies { policy.chose(token, score: score, model: model) }
        return outcome(of: token, model: model)
    }

    /// What choosing `token` makes of a step: the model's end, or the token and its bytes.
    func outcome(of token: Int32, model: LlamaModel) -> DecodedToken {
        if model.isEndOfGeneration(token) { return .endOfGeneration }
        return .token(id: token, bytes: model.tokenBytes(token))
    }

    /// How llama.cpp may choose the next token in its graph (``LlamaBatchEngine``), copying less
    /// than the scores (``SamplingPlan/graphChoice``); `nil` when the step reads the scores (a
    /// format, or a policy that does: a budget, a rewind point, resampling, an expectation,
    /// log-probabilities) or the chain could choose a token outside any such few.
    var graphChoice: GraphChoice? {
        guard chain.grammar == nil, !policies.contains(where: \.readsScores) else { return nil }
        return plan.graphChoice
    }

    /// Chooses (and accepts) the next token among the candidates llama.cpp's graph kept for batch
    /// entry `index` of `context` (``GraphChoice/candidates(_:)``), as among every token's scores.
    func chooseAmongGraphCandidates(_ context: OpaquePointer, at index: Int32, model: LlamaModel) -> DecodedToken {
        outcome(of: chain.chooseAmongGraphCandidates(context, at: index), model: model)
    }
}
