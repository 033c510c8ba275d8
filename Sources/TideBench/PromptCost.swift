import CLlama
import TideLlama

/// What llama.cpp alone takes to evaluate a few new tokens after a history already in its KV
/// cache: the reference for a chat turn's time to first token, which grows with the history only
/// as much as attention over it does.
struct PromptCost {
    let model: LlamaModel
    let threads: Int?
    var settings = BareContext.Settings()

    /// One measurement: `tokens` new tokens evaluated after `position` cached ones.
    struct Point: Hashable {
        var position: Int
        var tokens: Int
    }

    /// The median over `rounds` of one `llama_decode` of each point's tokens, the points
    /// alternating within each round, on one context holding the longest history.
    func run(_ points: [Point], rounds: Int) throws -> [Point: Double] {
        let bare = try BareContext(model: model, size: 4096, threads: threads, settings: settings)
        let context = bare.pointer
        var batch = llama_batch_init(512, 0, 1)
        defer { llama_batch_free(batch) }
        func decode(from start: Int, count: Int) throws {
            batch.n_tokens = 0
            for offset in 0..<count {
                let index = Int(batch.n_tokens)
                batch.token[index] = Int32(100 + (start + offset) % 500)
                batch.pos[index] = Int32(start + offset)
                batch.n_seq_id[index] = 1
                batch.seq_id[index]![0] = 0
                batch.logits[index] = offset == count - 1 ? 1 : 0
                batch.n_tokens += 1
            }
            guard llama_decode(context, batch) == 0 else { throw BenchmarkError("llama_decode failed") }
        }
        /// Makes the cache hold exactly `position` tokens: the history a chat turn finds there.
        func history(_ position: Int) throws {
            let memory = llama_get_memory(context)
            _ = llama_memory_seq_rm(memory, 0, Int32(position), -1)
            let filled = Int(llama_memory_seq_pos_max(memory, 0) + 1)
            for start in stride(from: filled, to: position, by: 256) { try decode(from: start, count: min(256, position - start)) }
        }
        var times: [Point: [Double]] = [:]
        for _ in 0..<(rounds + 1) {
            for point in points {
                try history(point.position)
                let start = ContinuousClock.now
                try decode(from: point.position, count: point.tokens)
                times[point, default: []].append((ContinuousClock.now - start).seconds)
            }
        }
        // The first round warms up and is not counted.
        return times.mapValues { median(Array($0.dropFirst())) }
    }
}
