import CLlama
import TideCore

/// A reusable `llama_batch`: tokens of one or more sequences, each at its position.
final class TokenBatch {
    private(set) var batch: llama_batch
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        batch = llama_batch_init(Int32(capacity), 0, 1)
    }

    deinit { llama_batch_free(batch) }

    var count: Int { Int(batch.n_tokens) }

    func clear() { batch.n_tokens = 0 }

    /// Adds one token; returns its index in the batch (where its logits are, if asked for).
    @discardableResult
    func add(_ token: Int32, position: Int, sequence: Int32, logits: Bool) -> Int32 {
        let index = Int(batch.n_tokens)
        batch.token[index] = token
        batch.pos[index] = Int32(position)
        batch.n_seq_id[index] = 1
        batch.seq_id[index]![0] = sequence
        batch.logits[index] = logits ? 1 : 0
        batch.n_tokens += 1
        return Int32(index)
    }

    /// Replaces the contents with `tokens` of sequence 0 from `position`, with logits for the
    /// last `outputs` of them.
    func fill(_ tokens: ArraySlice<Int32>, from position: Int, outputs: Int) {
        clear()
        for (offset, token) in tokens.enumerated() {
            add(token, position: position + offset, sequence: 0, logits: offset >= tokens.count - outputs)
        }
    }

    /// The entries whose scores a decode keeps, in batch order.
    var scoredEntries: [ScoredEntry] {
        (0..<count).compactMap { index in
            batch.logits[index] == 0 ? nil
                : ScoredEntry(index: index, sequence: batch.seq_id[index]![0], position: Int(batch.pos[index]), token: batch.token[index])
        }
    }

    /// After a decode of this batch in `context`, moves its kept scores as `machine` computes them
    /// (nothing on this machine).
    func simulate(_ machine: SimulatedMachine, in context: OpaquePointer, vocabularySize: Int) {
        guard !machine.isReal else { return }
        machine.perturb(rows: scoredEntries, vocabularySize: vocabularySize) { llama_get_logits_ith(context, Int32($0)) }
    }
}
