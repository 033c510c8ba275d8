import TideCore

/// The sequences of a `BackendBatch`, lent to one request at a time. A request that finds
/// none free waits its turn (first come, first served) and joins the running batch as soon as
/// one is returned. The most recently returned sequence is lent first: a client going on with
/// its conversation is likely to find its prefix still in that sequence's cache.
actor SequencePool {
    private var idle: [any ChatBackend]
    private var waiters: [(id: Int, continuation: CheckedContinuation<any ChatBackend, any Error>)] = []
    private var nextWaiter = 0
    /// How many sequences there are.
    let capacity: Int

    /// Every sequence of `batch`.
    init(batch: any BackendBatch) throws {
        idle = try (0..<batch.sequenceCapacity).map { _ in try batch.makeBackend(contextSize: nil) }
        capacity = idle.count
    }

    /// Sequences lent out now.
    var busy: Int { capacity - idle.count }

    /// Requests waiting for a sequence.
    var waiting: Int { waiters.count }

    /// A free sequence, waiting for one if need be. Throws `CancellationError` when the task is
    /// cancelled while it waits.
    func acquire() async throws -> any ChatBackend {
        if let backend = idle.popLast() { return backend }
        let id = nextWaiter
        nextWaiter += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append((id, continuation))
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
    }

    /// Returns a sequence: the longest-waiting request gets it, else it is kept for the next.
    func release(_ backend: any ChatBackend) {
        if waiters.isEmpty {
            idle.append(backend)
        } else {
            waiters.removeFirst().continuation.resume(returning: backend)
        }
    }

    private func abandon(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
