import CLlama
import TideCore

/// How a reply's tokens are chosen, decided once when the reply starts: the stages its
/// parameters turn on (``SamplerStages``), how the token is chosen after them, how much of the
/// prompt the stages look at, and what llama.cpp's graph may choose in the reply's place. Every
/// step reads it; none decides it again.
struct SamplingPlan {
    /// How the token is chosen after the stages.
    enum Chooser: Equatable {
        /// Greedy with no stage that could change the best token: the best logit alone decides,
        /// with no copy of the vocabulary into a candidate array.
        case best
        /// Greedy after stages that only lower scores (``SamplerStage/onlyLowers(_:)``): the best
        /// token before them is chosen whenever its score after them still beats the runner-up's
        /// before them, which a few scores tell (``SamplerChain/confirmsGreedyChoice(_:in:)``).
        case bestAfterLoweringStages
        /// Greedy after stages that may raise a score: the chain's full rule.
        case bestAfterStages
        /// The temperature and a random draw, or Mirostat.
        case draw
    }

    /// The stages before the chooser, in llama.cpp's order: under greedy decoding, without the
    /// cuts that no later stage depends on.
    let stages: [any SamplerStage.Type]
    /// How the token is chosen after them.
    let chooser: Chooser
    /// How many tokens before the reply the stages look at.
    let history: Int
    /// How many of the best scores hold every token the chain could choose
    /// (``graphCandidates(_:stages:model:)``); `nil` when no such count is much less than the vocabulary.
    let graphCandidates: Int?
    /// The model's vocabulary size: the length of a row of scores.
    let vocabularySize: Int
    /// The reply's tolerance (``GenerationParameters/tolerance``), for expected tokens.
    let tolerance: Double
    /// How many of the likeliest tokens each step's log-probability comes with; `nil` when the
    /// reply asks for none (``GenerationParameters/logprobs``).
    let logprobs: Int?

    /// The plan for `parameters` with `model`. Unless `comparingTwoScores` is off, greedy
    /// decoding over stages that only lower scores is confirmed by a few scores where it can be.
    init(_ parameters: GenerationParameters, model: LlamaModel, comparingTwoScores: Bool = true) {
        let on = (parameters.mirostat == 0 ? SamplerStages.order : [LogitBiasStage.self]).filter { $0.isOn(parameters) }
        if parameters.isGreedy {
            stages = on.lastIndex(where: { !$0.keepsBest }).map { Array(on[...$0]) } ?? []
            if stages.isEmpty {
                chooser = .best
            } else {
                chooser = comparingTwoScores && stages.allSatisfy { $0.onlyLowers(parameters) } ? .bestAfterLoweringStages : .bestAfterStages
            }
        } else {
            stages = on
            chooser = .draw
        }
        history = stages.map { $0.history(parameters) }.max() ?? 0
        vocabularySize = model.facts.vocabularySize
        tolerance = parameters.tolerance
        logprobs = parameters.logprobs
        graphCandidates = Self.graphCandidates(parameters, stages: stages, model: model)
    }

    /// Whether the reply is greedy: the best token after the stages.
    var isGreedy: Bool { chooser != .draw }

    /// What llama.cpp's graph may choose at a step that reads no scores: the best score alone
    /// under plain greedy decoding, else the ``graphCandidates`` best for the chain to choose among.
    var graphChoice: GraphChoice? {
        chooser == .best ? .best : graphCandidates.map { .candidates($0) }
    }

    /// llama.cpp's chain of the stages and the chooser for `parameters`; throws when a stage
    /// refuses a value only the model can check.
    func makeChain(_ parameters: GenerationParameters, model: LlamaModel) throws -> UnsafeMutablePointer<llama_sampler> {
        var chainParameters = llama_sampler_chain_default_params()
        chainParameters.no_perf = true
        let chain = llama_sampler_chain_init(chainParameters)!
        do {
            for stage in stages { llama_sampler_chain_add(chain, try stage.sampler(parameters, model: model)) }
        } catch {
            llama_sampler_free(chain)
            throw error
        }
        for chooser in choosers(parameters, model: model) { llama_sampler_chain_add(chain, chooser) }
        return chain
    }

    /// The samplers that choose the token after the stages: the best token when greedy, else the
    /// temperature and a random draw, or Mirostat.
    private func choosers(_ parameters: GenerationParameters, model: LlamaModel) -> [UnsafeMutablePointer<llama_sampler>?] {
        guard !isGreedy else { return [llama_sampler_init_greedy()] }
        // llama.cpp draws a random seed for LLAMA_DEFAULT_SEED (0xFFFFFFFF).
        let seed = parameters.seed ?? UInt32.max
        let temperature = llama_sampler_init_temp(Float(parameters.temperature))
        switch parameters.mirostat {
        case 1:
            return [temperature, llama_sampler_init_mirostat(Int32(model.facts.vocabularySize), seed, Float(parameters.mirostatTau),
                                                             Float(parameters.mirostatEta), 100)]
        case 2: return [temperature, llama_sampler_init_mirostat_v2(seed, Float(parameters.mirostatTau), Float(parameters.mirostatEta))]
        default: return [temperature, llama_sampler_init_dist(seed)]
        }
    }

    /// How many of the best scores hold every token a chain for `parameters` could choose, so
    /// that choosing among only those chooses as among all: the chain cuts to `k` tokens (top-k;
    /// when greedy, the best one) after stages that each lower the scores of at most `m`
    /// tokens, each by what that token alone decides (``SamplerStage/onlyLowers(_:)``,
    /// ``SamplerStage/changesAtMost(_:model:)``). A token outside the `k + Σm` best before those
    /// stages is beaten by `k` of them that no stage lowered, so it is not among the `k` best
    /// after them; the stages after the cut (typical-p, top-p, min-p, XTC, the temperature, the
    /// draw) see only the `k` it kept. Tokens of exactly equal scores may come in another order,
    /// so a choice among equals could differ. `nil` where the chain has no such cut (top-k off,
    /// Mirostat, top-n-σ, a raising bias or penalty) or the count is not under a quarter of the
    /// vocabulary.
    private static func graphCandidates(_ parameters: GenerationParameters, stages: [any SamplerStage.Type], model: LlamaModel) -> Int? {
        guard parameters.mirostat == 0 else { return nil }
        var count: Int
        let before: ArraySlice<any SamplerStage.Type>
        if parameters.isGreedy {
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
}
