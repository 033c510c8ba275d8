import CLlama
import TideCore

extension LlamaModel {
    /// Whether llama.cpp gives each token of a batch (of up to ``TeacherForcer/chunkSize``) bit
    /// for bit the scores it gives that token decoded alone, on `threads` threads: what teacher
    /// forcing needs to reproduce generating exactly. Probed once per thread count, on a small
    /// context of its own (about 30 decodes of a 135M model: a quarter of a second on two
    /// cores), and kept across processes (``BatchExactnessRecord``).
    ///
    /// It holds for SmolLM2's Q4_1 and Q8_0 weights with flash attention. It does not for Gemma 3's
    /// Q4_K_M: llama.cpp repacks K-quant weights and multiplies a batch of them with other
    /// kernels than one token, so its recorded replies are checked within the tolerance, and its
    /// drafts accepted within it. `flashAttention: false` probes a context without it.
    public func scoresBatchesExactly(threads: Int, flashAttention: Bool = true) -> Bool {
        let key = flashAttention ? threads : -threads
        if let known = exactBatches.withLock({ $0[key] }) { return known }
        let record = BatchExactnessRecord(model: self, threads: threads, flashAttention: flashAttention)
        let exact = record.read() ?? {
            let found = probeBatches(threads: threads, flashAttention: flashAttention)
            record.write(found)
            return found
        }()
        exactBatches.withLock { $0[key] = exact }
        return exact
    }

    /// Decodes a text one token at a time, then its first token alone and the rest as one batch
    /// (15 tokens: whole groups of 4 and a remainder, as kernels that work on groups of rows
    /// split them), and compares every score.
    private func probeBatches(threads: Int, flashAttention: Bool) -> Bool {
        var options = LlamaContextOptions(contextSize: 256, threads: threads)
        options.flashAttention = flashAttention
        let parameters = options.contextParameters(contextSize: 256, sequences: 1)
        guard let context = llama_init_from_model(pointer, parameters),
              let tokens = try? tokenize("The tide comes in twice a day, as the moon pulls the sea; sailors have always known it."),
              tokens.count >= 16 else { return false }
        defer { llama_free(context) }
        let probe = Array(tokens.prefix(16))
        let batch = TokenBatch(capacity: probe.count)
        let vocabulary = facts.vocabularySize
        var alone: [[Float]] = []
        for (position, token) in probe.enumerated() {
            batch.fill([token], from: position, outputs: 1)
            guard llama_decode(context, batch.batch) == 0, let scores = llama_get_logits_ith(context, 0) else { return false }
            alone.append(Array(UnsafeBufferPointer(start: scores, count: vocabulary)))
        }
        llama_memory_seq_rm(llama_get_memory(context), 0, 0, -1)
        batch.fill(probe[..<1], from: 0, outputs: 1)
        guard llama_decode(context, batch.batch) == 0 else { return false }
        batch.fill(probe[1...], from: 1, outputs: probe.count - 1)
        guard llama_decode(context, batch.batch) == 0 else { return false }
        for row in 0..<(probe.count - 1) {
            guard let scores = llama_get_logits_ith(context, Int32(row)),
                  Array(UnsafeBufferPointer(start: scores, count: vocabulary)) == alone[row + 1] else { return false }
        }
        return true
    }
}

extension LlamaModel {
    /// Why a context of this model on `threads` threads (with flash attention or not) cannot check
    /// a recorded reply by teacher forcing under `tolerance`, or `nil` when it can: batches that
    /// are not bit-exact need a tolerance above 0.
    func teacherForcingUnavailable(threads: Int, flashAttention: Bool, tolerance: Double) -> String? {
        if !canDropCachedTokens { return "this model's cache cannot take back tokens" }
        if tolerance == 0, !scoresBatchesExactly(threads: threads, flashAttention: flashAttention) {
            return "llama.cpp scores a batch of this model's tokens differently from each token alone, "
                + "and the tolerance is 0 (exact)"
        }
        return nil
    }
}
