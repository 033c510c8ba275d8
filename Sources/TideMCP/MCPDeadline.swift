import Synchronization

/// Runs `operation`, or gives up on it after `limit` with `timeout()`'s error. The operation is
/// not awaited past its deadline (the SDK's requests do not end when cancelled: they end when
/// their server answers or the connection closes), so whatever it waits on never holds Tide.
/// A caller that is cancelled (Ctrl-C stopping a reply, a client of `tide serve` leaving) stops
/// waiting at once, with `CancellationError`.
func withDeadline<T: Sendable>(_ limit: Duration, timeout: @escaping @Sendable () -> any Error,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = FirstOutcome<T>()
    return try await withTaskCancellationHandler {
        try await wait(for: outcome, limit: limit, timeout: timeout, operation)
    } onCancel: {
        outcome.finish(.failure(CancellationError()))
    }
}

private func wait<T: Sendable>(for outcome: FirstOutcome<T>, limit: Duration, timeout: @escaping @Sendable () -> any Error,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        outcome.start(continuation)
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

/// A continuation resumed by the first of several to finish (the operation, the deadline, a
/// cancellation); the others are ignored, and one that comes before the continuation is kept
/// for it.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, early: Result<T, any Error>?, done: Bool)>(
        (nil, nil, false))

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { state in
            if let early = state.early {
                continuation.resume(with: early)
                state.done = true
            } else {
                state.continuation = continuation
            }
        }
    }

    func finish(_ result: Result<T, any Error>) {
        state.withLock { state in
            guard !state.done else { return }
            if let continuation = state.continuation {
                continuation.resume(with: result)
                state.continuation = nil
                state.done = true
            } else if state.early == nil {
                state.early = result
            }
        }
    }
}
