import CLlama

/// How llama.cpp chooses a reply's next token in its graph, so that less than the whole
/// vocabulary's scores (49,152 floats for SmolLM2) is copied back from where the model runs
/// (``LlamaBatchEngine``, `llama_set_sampler`). ``ReplySampler/graphChoice`` says which a step
/// allows.
enum GraphChoice: Equatable, Sendable {
    /// The best score's token (``GraphGreedySampler``): its id alone is copied back.
    case best
    /// The `count` best scores and their tokens (llama.cpp's top-k in the graph), among which the
    /// reply's own chain chooses on the CPU as it would among all of them
    /// (``ReplySampler/chooseAmongGraphCandidates(_:at:model:)``).
    case candidates(Int)

    /// The chain `llama_set_sampler` runs in the graph for this choice; `llama_sampler_free`
    /// frees it. Where the scores' device cannot run llama.cpp's top-k, its stage stays off and
    /// the whole row is copied, which the CPU's choice reads as it reads copied scores.
    func makeChain() -> UnsafeMutablePointer<llama_sampler>? {
        switch self {
        case .best:
            return GraphGreedySampler.makeChain()
        case .candidates(let count):
            var parameters = llama_sampler_chain_default_params()
            parameters.no_perf = true
            guard let chain = llama_sampler_chain_init(parameters) else { return nil }
            llama_sampler_chain_add(chain, llama_sampler_init_top_k(Int32(count)))
            return chain
        }
    }
}

/// Which of the choices in llama.cpp's graph (``GraphChoice``) a backend makes.
public enum GraphChoicePolicy: Sendable {
    /// None: every step copies the scores (what the benchmarks and tests compare with).
    case never
    /// Those that save work on this machine: the few best scores wherever the chain allows, and
    /// the best score's token only where the scores are on a GPU. On the CPU the scores are read
    /// in place, and llama.cpp's argmax in the graph (one thread, scalar) costs more than Tide's
    /// (docs/benchmarks.md has the figures).
    case whereTheyPay
    /// Every choice the chain allows, on any device (for tests and benchmarks on a CPU).
    case always
}
