import Synchronization

/// Runs `operation`, or gives up on it after `limit` with `timeout()`'s error. The operation is
/// not awaited past its deadline (the SDK's requests do not end when cancelled: they end when
/// their server answers or the connection closes), so whatever it waits on never holds Tide.
func withDeadline<T: Sendable>(_ limit: Duration, timeout: @escaping @Sendable () -> any Error,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let outcome = FirstOutcome(continuation)
        let timer = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { outcome.finish(.failure(timeout())) }
        }
        Task {
            do {
                outcome.finish(.success(try await operation()))
            } catch {
                outcome.finish(.failure(error))
            }
            timer.cancel()
        }
    }
}

/// A continuation resumed by the first of several to finish; the others are ignored.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func finish(_ result: Result<T, any Error>) {
        continuation.withLock { pending in
            pending?.resume(with: result)
            pending = nil
        }
    }
}
