import CLlama
import TideLlama

/// What llama.cpp alone gains from batching on this machine: one `llama_decode` of a token for
/// each of eight sequences against eight decodes of one token, on the same context, alternating.
/// No replay of eight sequences can beat this ratio; it bounds the parallel-replay figure.
struct BatchCeiling {
    let model: LlamaModel
    let rounds: Int
    let threads: Int?
    var settings = BareContext.Settings()
    static let sequences = 8

    /// The median over rounds of (one batched step) / (eight single steps).
    func run() throws -> Double {
        let bare = try BareContext(model: model, size: 2048, sequences: Self.sequences, threads: threads, settings: settings)
        let context = bare.pointer
        var batch = llama_batch_init(512, 0, 1)
        defer { llama_batch_free(batch) }
        var positions = [Int32](repeating: 0, count: Self.sequences)
        func add(_ sequence: Int, token: Int32, logits: Bool) {
            let index = Int(batch.n_tokens)
            batch.token[index] = token
            batch.pos[index] = positions[sequence]
            batch.n_seq_id[index] = 1
            batch.seq_id[index]![0] = Int32(sequence)
            batch.logits[index] = logits ? 1 : 0
            batch.n_tokens += 1
            positions[sequence] += 1
        }
        // Each sequence starts with a different number of tokens, as conversations do.
        for sequence in 0..<Self.sequences {
            batch.n_tokens = 0
            for offset in 0..<(100 + 40 * sequence) { add(sequence, token: Int32(100 + offset % 500), logits: false) }
            batch.logits[Int(batch.n_tokens) - 1] = 1
            guard llama_decode(context, batch) == 0 else { throw BenchmarkError("llama_decode failed") }
        }
        var ratios: [Double] = []
        for round in 0..<rounds {
            batch.n_tokens = 0
            for sequence in 0..<Self.sequences { add(sequence, token: Int32(200 + round), logits: true) }
            let batched = ContinuousClock.now
            _ = llama_decode(context, batch)
            let batchedSeconds = (ContinuousClock.now - batched).seconds
            let single = ContinuousClock.now
            for sequence in 0..<Self.sequences {
                batch.n_tokens = 0
                add(sequence, token: Int32(300 + round), logits: true)
                _ = llama_decode(context, batch)
            }
            let singleSeconds = (ContinuousClock.now - single).seconds
            ratios.append(batchedSeconds / singleSeconds)
        }
        return median(ratios)
    }
}
