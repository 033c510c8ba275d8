import CLlama
import TideLlama

/// The reference for decode speed: llama.cpp's own minimal greedy loop (as in its `simple`
/// example) on a backend's context, with no Tide code between the steps.
struct BareGreedyLoop {
    let backend: LlamaBackend

    /// Evaluates `prompt`, then samples greedily until an end token or `maxTokens` tokens.
    /// Timing starts at the first sampled token, as the engine's statistics do.
    func run(prompt: [Int32], maxTokens: Int) -> DecodeSample {
        backend.clearCache()
        backend.stopChoosingOnBackend()
        let context = backend.context
        let vocab = llama_model_get_vocab(backend.model.pointer)
        let sampler = llama_sampler_chain_init(llama_sampler_chain_default_params())
        llama_sampler_chain_add(sampler, llama_sampler_init_greedy())
        defer {
            llama_sampler_free(sampler)
            backend.clearCache()
        }
        var tokens = prompt
        var generated = 0
        var firstToken: ContinuousClock.Instant?
        var piece = [CChar](repeating: 0, count: 256)
        while true {
            let status = tokens.withUnsafeMutableBufferPointer {
                llama_decode(context, llama_batch_get_one($0.baseAddress, Int32($0.count)))
            }
            guard status == 0 else { break }
            let next = llama_sampler_sample(sampler, context, -1)
            if firstToken == nil { firstToken = .now }
            if llama_vocab_is_eog(vocab, next) { break }
            generated += 1
            _ = llama_token_to_piece(vocab, next, &piece, Int32(piece.count), 0, true)
            if generated == maxTokens { break }
            tokens = [next]
        }
        return DecodeSample(tokens: generated, seconds: firstToken.map { (ContinuousClock.now - $0).seconds } ?? 0)
    }
}

/// Tokens decoded after the first, and the time they took.
struct DecodeSample {
    var tokens: Int
    var seconds: Double

    /// Tokens per second after the first token, the engine's definition.
    var tokensPerSecond: Double { seconds > 0 ? Double(max(0, tokens - 1)) / seconds : 0 }
}
