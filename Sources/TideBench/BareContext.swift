import CLlama
import Foundation
import TideLlama

/// A llama.cpp context made with llama.cpp's own API, for measuring llama.cpp alone: no Tide
/// code between the benchmark and `llama_decode`.
final class BareContext {
    let pointer: OpaquePointer

    /// How a context evaluates batches: the most tokens per pass (`n_ubatch`) and whether flash
    /// attention is on (`nil`: llama.cpp's choice).
    struct Settings: Sendable, Hashable, CustomStringConvertible {
        var microBatch = 512
        var flashAttention: Bool?

        var description: String {
            "n_ubatch \(microBatch), flash attention " + (flashAttention.map { $0 ? "on" : "off" } ?? "auto")
        }
    }

    /// A context of `size` tokens per sequence, with a KV cache of its own for each of
    /// `sequences` sequences, on `threads` threads (default: every core).
    init(model: LlamaModel, size: Int, sequences: Int = 1, threads: Int?, settings: Settings = Settings()) throws {
        var parameters = llama_context_default_params()
        parameters.n_ctx = UInt32(size * sequences)
        parameters.n_batch = 512
        parameters.n_ubatch = UInt32(settings.microBatch)
        if let flash = settings.flashAttention {
            parameters.flash_attn_type = flash ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED
        }
        parameters.n_seq_max = UInt32(sequences)
        parameters.kv_unified = false
        let threadCount = Int32(threads ?? ProcessInfo.processInfo.activeProcessorCount)
        parameters.n_threads = threadCount
        parameters.n_threads_batch = threadCount
        parameters.no_perf = true
        guard let context = llama_init_from_model(model.pointer, parameters) else {
            throw BenchmarkError("llama.cpp could not create a context for the reference measurement")
        }
        pointer = context
    }

    deinit { llama_free(pointer) }
}
