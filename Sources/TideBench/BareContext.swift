import CLlama
import Foundation
@_spi(Benchmarks) import TideLlama

/// A llama.cpp context made with llama.cpp's own API, for measuring llama.cpp alone: no Tide
/// code between the benchmark and `llama_decode`.
final class BareContext {
    let pointer: OpaquePointer

    /// A context of `size` tokens per sequence, with a KV cache of its own for each of
    /// `sequences` sequences, on `threads` threads (default: every core).
    init(model: LlamaModel, size: Int, sequences: Int = 1, threads: Int?) throws {
        var parameters = llama_context_default_params()
        parameters.n_ctx = UInt32(size * sequences)
        parameters.n_batch = 512
        parameters.n_ubatch = 512
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
