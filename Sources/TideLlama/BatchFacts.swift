import CLlama
import TideCore

/// What a probe of llama.cpp's batches on one model, thread count and attention kernel found:
/// whether a batch scores each token bit for bit as alone, and what a batch costs.
struct BatchFacts: Codable, Sendable, Hashable {
    /// Whether every token of a batch gets the scores it gets decoded alone.
    var exact: Bool
    /// Whether a context on one thread gives each token decoded alone the scores it gets on the
    /// probed thread count: then a decode may use fewer threads while the machine is busy
    /// (``ThreadShare``) and compute the same.
    var sameOnOneThread: Bool
    /// The time of one decode of a chunk of ``chunkSizes`` tokens (scores at each), in decodes of
    /// a single token: what checking a draft one token shorter costs.
    var checkCosts: [Double]

    /// The chunk sizes of ``checkCosts``.
    static let chunkSizes = [2, 4, 8, 15]
}

extension LlamaModel {
    /// Whether llama.cpp gives each token of a batch (of up to ``TeacherForcer/chunkSize``) bit
    /// for bit the scores it gives that token decoded alone, on `threads` threads: what teacher
    /// forcing needs to reproduce generating exactly (``batchFacts(threads:kernel:)``).
    ///
    /// It holds for SmolLM2's Q4_1 and Q8_0 weights with flash attention. It does not for Gemma 3's
    /// Q4_K_M: llama.cpp repacks K-quant weights and multiplies a batch of them with other
    /// kernels than one token, so its recorded replies are checked within the tolerance, and its
    /// drafts accepted within it. `kernel` says how the context computes attention (by default with
    /// flash attention, over an f16 cache).
    ///
    /// A quantized KV cache never counts as exact: the probe's short context scores its batches
    /// exactly, but deeper in a conversation they part from single tokens (replaying
    /// `Conversations/` recorded with a q8_0 cache under one, 10 of 26 replies were confirmed only
    /// within the tolerance: docs/conversations.md).
    public func scoresBatchesExactly(threads: Int, kernel: AttentionKernel = AttentionKernel()) -> Bool {
        guard !kernel.keyCache.isQuantized, !kernel.valueCache.isQuantized else { return false }
        return batchFacts(threads: threads, kernel: kernel).exact
    }

    /// Whether a context on `threads` threads scores a batch's tokens bit for bit as alone on
    /// `machine`: never where it simulates a batch drift.
    func scoresBatchesExactly(threads: Int, kernel: AttentionKernel, machine: SimulatedMachine) -> Bool {
        machine.batchDrift == nil && scoresBatchesExactly(threads: threads, kernel: kernel)
    }

    /// What checking a draft costs on `threads` threads, in single decodes (``CheckCosts``): as
    /// `machine` gives them, or measured.
    func draftCheckCosts(threads: Int, kernel: AttentionKernel, machine: SimulatedMachine) -> CheckCosts {
        machine.checkCosts
            ?? CheckCosts(chunks: BatchFacts.chunkSizes, costs: batchFacts(threads: threads, kernel: kernel).checkCosts)
    }

    /// What llama.cpp's batches do on `threads` threads: probed once per thread count and kernel,
    /// on a small context of its own (about 55 decodes of a 135M model: a third of a second on
    /// two cores), and kept across processes (``BatchFactsRecord``).
    func batchFacts(threads: Int, kernel: AttentionKernel) -> BatchFacts {
        let key = "\(threads) \(kernel)"
        if let known = probedBatches.withLock({ $0[key] }) { return known }
        let record = BatchFactsRecord(model: self, threads: threads, kernel: kernel)
        let facts = record.read() ?? {
            guard let found = probeBatches(threads: threads, kernel: kernel) else {
                return BatchFacts(exact: false, sameOnOneThread: false, checkCosts: BatchFacts.chunkSizes.map(Double.init))
            }
            record.write(found)
            return found
        }()
        probedBatches.withLock { $0[key] = facts }
        return facts
    }

    /// Decodes a text one token at a time, then its first token alone and the rest as one batch
    /// (15 tokens: whole groups of 4 and a remainder, as kernels that work on groups of rows
    /// split them), and compares every score; decodes the text one token at a time on one thread
    /// too, and compares; then times chunks of ``BatchFacts/chunkSizes`` after the first token
    /// (the faster of two) against the median single decode. `nil` if a decode fails.
    private func probeBatches(threads: Int, kernel: AttentionKernel) -> BatchFacts? {
        var options = LlamaContextOptions(contextSize: 256, threads: threads)
        options.flashAttention = kernel.flashAttention
        options.keyCacheType = kernel.keyCache
        options.valueCacheType = kernel.valueCache
        let parameters = options.contextParameters(contextSize: 256, sequences: 1)
        guard let context = llama_init_from_model(pointer, parameters),
              let tokens = try? tokenize("The tide comes in twice a day, as the moon pulls the sea; sailors have always known it."),
              tokens.count >= 16 else { return nil }
        defer { llama_free(context) }
        let probe = Array(tokens.prefix(16))
        let batch = TokenBatch(capacity: probe.count)
        let vocabulary = facts.vocabularySize
        let clock = ContinuousClock()
        /// Each token's scores decoded alone, and each decode's time.
        func decodedAlone() -> (scores: [[Float]], seconds: [Double])? {
            llama_memory_seq_rm(llama_get_memory(context), 0, 0, -1)
            var scores: [[Float]] = []
            var seconds: [Double] = []
            for (position, token) in probe.enumerated() {
                batch.fill([token], from: position, outputs: 1)
                let start = clock.now
                guard llama_decode(context, batch.batch) == 0, let row = llama_get_logits_ith(context, 0) else { return nil }
                seconds.append((clock.now - start).seconds)
                scores.append(Array(UnsafeBufferPointer(start: row, count: vocabulary)))
            }
            return (scores, seconds)
        }
        guard let (alone, singles) = decodedAlone() else { return nil }
        /// Empties the cache, decodes the first token alone and `count` more as one batch: the
        /// batch's time.
        func chunk(_ count: Int) -> Double? {
            llama_memory_seq_rm(llama_get_memory(context), 0, 0, -1)
            batch.fill(probe[..<1], from: 0, outputs: 1)
            guard llama_decode(context, batch.batch) == 0 else { return nil }
            batch.fill(probe[1...count], from: 1, outputs: count)
            let start = clock.now
            guard llama_decode(context, batch.batch) == 0 else { return nil }
            return (clock.now - start).seconds
        }
        guard chunk(probe.count - 1) != nil else { return nil }
        var exact = true
        for row in 0..<(probe.count - 1) {
            guard let scores = llama_get_logits_ith(context, Int32(row)),
                  Array(UnsafeBufferPointer(start: scores, count: vocabulary)) == alone[row + 1] else {
                exact = false
                break
            }
        }
        var sameOnOneThread = true
        if threads > 1 {
            llama_set_n_threads(context, 1, 1)
            sameOnOneThread = decodedAlone()?.scores == alone
            llama_set_n_threads(context, Int32(threads), Int32(threads))
        }
        let single = singles.dropFirst().sorted()[(singles.count - 1) / 2]
        var costs: [Double] = []
        for size in BatchFacts.chunkSizes {
            guard let first = chunk(size), let second = chunk(size) else { return nil }
            costs.append(min(first, second) / max(single, 1e-9))
        }
        return BatchFacts(exact: exact, sameOnOneThread: sameOnOneThread, checkCosts: costs)
    }
}

extension LlamaModel {
    /// Why a context of this model on `threads` threads (with attention computed by `kernel`) cannot check
    /// a recorded reply by teacher forcing under `tolerance`, or `nil` when it can: batches that
    /// are not bit-exact need a tolerance above 0.
    func teacherForcingUnavailable(threads: Int, kernel: AttentionKernel, machine: SimulatedMachine, tolerance: Double) -> String? {
        if !canDropCachedTokens { return "this model's cache cannot take back tokens" }
        if tolerance == 0, !scoresBatchesExactly(threads: threads, kernel: kernel, machine: machine) {
            return "llama.cpp scores a batch of this model's tokens differently from each token alone, "
                + "and the tolerance is 0 (exact)"
        }
        return nil
    }
}
