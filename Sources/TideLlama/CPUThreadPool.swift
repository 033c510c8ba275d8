import CLlama

/// The CPU backend's threads for one context, kept for the context's life.
///
/// Without a pool of its own, llama.cpp starts its threads for every decode and ends them after
/// it; the ending threads are still counted as ready to run when the next decode's thread count
/// is decided (``ThreadShare``), and cost a start each time. Between decodes, the pool's threads
/// wait asleep (polling level 0): polling would spin them on cores that another process, or
/// this one's own sampling and plugins, could use.
final class CPUThreadPool: @unchecked Sendable {
    private let pool: OpaquePointer

    /// A pool of `threads` threads (the calling thread is one of them); `nil` if llama.cpp
    /// cannot make one.
    init?(threads: Int) {
        var parameters = ggml_threadpool_params_default(Int32(threads))
        parameters.poll = 0
        guard let pool = ggml_threadpool_new(&parameters) else { return nil }
        self.pool = pool
    }

    /// Makes `context` decode on this pool; the pool must outlive the context.
    func attach(to context: OpaquePointer) {
        llama_attach_threadpool(context, pool, pool)
    }

    deinit { ggml_threadpool_free(pool) }
}
