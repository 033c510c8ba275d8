import Foundation
import TideCore
import TideLlama

/// The KV cache's types side by side (`--cache-type-k`/`--cache-type-v`): for f16 and q8_0 (and
/// q4_0, for the record), the memory a sequence's cache takes, measured as the resident memory a
/// batch of sequences adds (llama.cpp clears the cache when it makes it, so every page is
/// touched); how many `--parallel` sequences of 4096 tokens fit a 1 GiB cache; the decode rate of
/// four sequences at once deep in their context; and whether Tide takes batches to score exactly
/// as single tokens (what exact teacher forcing and drafting rest on).
struct KVCacheBenchmark {
    let model: LlamaModel
    let rounds: Int
    let tokens: Int
    let threads: Int?

    /// One cache type's figures.
    struct Row: Sendable {
        var type: KVCacheType
        /// Bytes one sequence of ``KVCacheBenchmark/contextSize`` tokens takes, measured.
        var bytesPerSequence: Int64
        /// Bytes the estimate (``TideCore/ModelFootprint``) gives for it.
        var estimatedBytesPerSequence: Int64
        /// Sequences of 4096 tokens a cache of 1 GiB holds, by the measurement.
        var sequencesInBudget: Int
        /// Tokens per second of four sequences decoding at once (median of the rounds).
        var tokensPerSecond: Double
        /// Its decode rate over f16's, paired by round.
        var ratioToF16: Double
        /// Whether Tide takes a batch to score its tokens exactly as each alone with this cache
        /// (never with a quantized one), so that teacher forcing holds bit for bit.
        var exactBatches: Bool
    }

    struct Result: Sendable {
        var contextSize: Int
        var sequences: Int
        var historyTokens: Int
        var rows: [Row]
    }

    static let types: [KVCacheType] = [.f16, .q8_0, .q4_0]
    static let contextSize = 1024
    static let sequences = 4
    static let budget: Int64 = 1 << 30

    func run() async throws -> Result {
        var memory: [KVCacheType: Int64] = [:]
        for type in Self.types { memory[type] = try measuredBytes(type) }
        // A conversation of about 700 tokens in each sequence, so that attention reads a deep cache.
        let history = CacheReuseBenchmark.history
        var rates: [KVCacheType: [Double]] = [:]
        var promptTokens = 0
        for _ in 0..<rounds {
            for type in Self.types {
                let (rate, prompt) = try await decodeRate(type, history: history)
                rates[type, default: []].append(rate)
                promptTokens = prompt
            }
        }
        let f16 = rates[.f16] ?? []
        let rows = Self.types.map { type in
            let bytes = memory[type] ?? 0
            let perSequence4096 = Double(bytes) * 4096 / Double(Self.contextSize)
            let paired = zip(rates[type] ?? [], f16).map { $1 > 0 ? $0 / $1 : 0 }
            return Row(type: type, bytesPerSequence: bytes,
                       estimatedBytesPerSequence: model.kvCacheBytes(contextSize: Self.contextSize, key: type, value: type),
                       sequencesInBudget: perSequence4096 > 0 ? Int(Double(Self.budget) / perSequence4096) : 0,
                       tokensPerSecond: median(rates[type] ?? []), ratioToF16: median(paired),
                       exactBatches: model.scoresBatchesExactly(threads: threads ?? LlamaContextOptions.coreCount,
                                                                kernel: AttentionKernel(keyCache: type, valueCache: type)))
        }
        return Result(contextSize: Self.contextSize, sequences: Self.sequences, historyTokens: promptTokens, rows: rows)
    }

    /// The options of a batch whose cache stores keys and values as `type`.
    private func options(_ type: KVCacheType) -> LlamaContextOptions {
        var options = LlamaContextOptions(contextSize: Self.contextSize, threads: threads)
        options.keyCacheType = type
        options.valueCacheType = type
        return options
    }

    /// The resident memory one sequence's cache adds: a batch of eight sequences made, less
    /// what a batch of one adds, over seven (the compute buffers cancel out).
    private func measuredBytes(_ type: KVCacheType) throws -> Int64 {
        func added(_ sequences: Int) throws -> Int64 {
            let before = ResidentMemory.bytes
            let engine = try LlamaBatchEngine(model: model, sequences: sequences, options: options(type))
            let after = ResidentMemory.bytes
            engine.shutdown()
            return after - before
        }
        _ = try added(1)  // the first context pays for buffers every later one reuses
        let one = try added(1)
        let eight = try added(8)
        return max(0, (eight - one) / 7)
    }

    /// Tokens per second of ``KVCacheBenchmark/sequences`` greedy replies decoding at once after
    /// `history`, each on a sequence of its own, and the prompt's tokens.
    private func decodeRate(_ type: KVCacheType, history: [ChatMessage]) async throws -> (rate: Double, promptTokens: Int) {
        let engine = try LlamaBatchEngine(model: model, sequences: Self.sequences, options: options(type))
        defer { engine.shutdown() }
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = tokens
        parameters.draft = .off
        let sessions = try (0..<Self.sequences).map { index in
            let session = ChatSession(backend: try engine.makeBackend(), parameters: parameters)
            session.history = history
            return (session, "Question \(index + 1): which topic came up in turn \(index + 1)? Answer at length.")
        }
        let statistics = try await withThrowingTaskGroup(of: GenerationStatistics.self) { group in
            for (session, question) in sessions {
                group.addTask { try await session.reply(to: question).collect().summary?.statistics ?? GenerationStatistics() }
            }
            return try await group.reduce(into: [GenerationStatistics]()) { $0.append($1) }
        }
        let rate = statistics.reduce(0.0) { sum, stats in
            stats.decodeDuration.seconds > 0 ? sum + Double(max(0, stats.generatedTokens - 1)) / stats.decodeDuration.seconds : sum
        }
        return (rate, statistics.first?.promptTokens ?? 0)
    }
}
