import CLlama

/// The sampler chain a ``LlamaBatchEngine`` sets on a sequence whose tokens llama.cpp chooses in
/// its graph (`llama_set_sampler`): the best score's token, found where the scores are, and only
/// that token's id copied back. llama.cpp's own greedy sampler leaves the scores in its output, and
/// llama.cpp then copies their whole row (49,152 floats for SmolLM2) as it does without a sampler;
/// this one drops them from the output.
///
/// Equal best scores are broken as llama.cpp's argmax kernel breaks them (its CPU kernel takes the
/// last), where Tide's own argmax takes the first: replies differ from Tide's choice only at an
/// exact tie of the two best scores.
enum GraphGreedySampler {
    /// A chain holding the sampler, for `llama_set_sampler`; `llama_sampler_free` frees both.
    static func makeChain() -> UnsafeMutablePointer<llama_sampler>? {
        var parameters = llama_sampler_chain_default_params()
        parameters.no_perf = true
        guard let chain = llama_sampler_chain_init(parameters) else { return nil }
        guard let sampler = llama_sampler_init(interface, nil) else {
            llama_sampler_free(chain)
            return nil
        }
        llama_sampler_chain_add(chain, sampler)
        return chain
    }

    private static let name: StaticString = "tide-graph-greedy"

    /// The sampler's functions; it keeps no state (its context is `nil`), so it needs no clone or free.
    nonisolated(unsafe) private static let interface: UnsafeMutablePointer<llama_sampler_i> = {
        let pointer = UnsafeMutablePointer<llama_sampler_i>.allocate(capacity: 1)
        pointer.initialize(to: llama_sampler_i(
            name: { _ in UnsafeRawPointer(GraphGreedySampler.name.utf8Start).assumingMemoryBound(to: CChar.self) },
            accept: nil,
            apply: { _, candidates in
                // On the CPU (llama.cpp runs a chain there when no graph sampled): the first best.
                guard let candidates, candidates.pointee.size > 0 else { return }
                let data = candidates.pointee.data!
                var best = 0
                for index in 1..<Int(candidates.pointee.size) where data[index].logit > data[best].logit { best = index }
                candidates.pointee.selected = Int64(best)
            },
            reset: nil, clone: nil, free: nil,
            backend_init: { _, bufferType, _ in
                // Whether the scores' device has an argmax kernel (a CPU buffer always has).
                guard let device = ggml_backend_buft_get_device(bufferType) else { return true }
                let parameters = ggml_init_params(mem_size: 4 * ggml_tensor_overhead(), mem_buffer: nil, no_alloc: true)
                guard let context = ggml_init(parameters) else { return false }
                defer { ggml_free(context) }
                let scores = ggml_new_tensor_1d(context, GGML_TYPE_F32, 1024)
                return ggml_backend_dev_supports_op(device, ggml_argmax(context, scores))
            },
            backend_accept: nil,
            backend_apply: { _, context, _, data in
                guard let data, let scores = data.pointee.logits else { return }
                data.pointee.sampled = ggml_argmax(context, ggml_reshape_1d(context, scores, ggml_nelements(scores)))
                // Nothing else leaves the graph: llama.cpp copies a sampler's scores when it keeps them.
                data.pointee.logits = nil
            },
            backend_set_input: nil, backend_reset: nil, copy_state: nil))
        return pointer
    }()
}
