import CLlama
import TideCore

/// A llama.cpp sampler chain built from generation parameters, in llama.cpp's usual order:
/// repetition penalty, then greedy, or top-k → top-p → min-p → temperature → random draw.
final class SamplerChain {
    private let chain: UnsafeMutablePointer<llama_sampler>
    /// Plain greedy decoding (no penalties), which needs only the best logit: llama.cpp's
    /// sampler would first copy the whole vocabulary into a candidate array.
    private let argmaxOnly: Bool
    private let vocabularySize: Int

    init(_ parameters: GenerationParameters, vocabularySize: Int) {
        argmaxOnly = parameters.temperature == 0 && parameters.repeatPenalty == 1
        self.vocabularySize = vocabularySize
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

    deinit { llama_sampler_free(chain) }

    /// Lets the repetition penalty see tokens that precede the reply (the prompt's tail).
    func accept(_ tokens: some Sequence<Int32>) {
        for token in tokens { llama_sampler_accept(chain, token) }
    }

    /// Samples (and accepts) a token from the logits of batch entry `index` (the last by default).
    func sample(_ context: OpaquePointer, at index: Int32 = -1) -> Int32 {
        guard argmaxOnly, let logits = llama_get_logits_ith(context, index) else {
            return llama_sampler_sample(chain, context, index)
        }
        var best = 0
        for token in 1..<vocabularySize where logits[token] > logits[best] { best = token }
        return Int32(best)
    }

    /// One decoding step from the logits of batch entry `index`: the hooks' adjustments, then
    /// the sampled token, the model's end, or the end of the candidates when hooks banned them all.
    func step(_ context: OpaquePointer, at index: Int32 = -1, model: LlamaModel,
              adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        if let adjustingLogits, let logits = llama_get_logits_ith(context, index) {
            let view = LlamaLogitsView(logits: logits, model: model)
            try adjustingLogits(view)
            guard view.hasCandidates else { return .everyTokenBanned }
        }
        let token = sample(context, at: index)
        if model.isEndOfGeneration(token) { return .endOfGeneration }
        return .token(id: token, bytes: model.tokenBytes(token))
    }

    private func add(_ sampler: UnsafeMutablePointer<llama_sampler>?) {
        llama_sampler_chain_add(chain, sampler)
    }
}
