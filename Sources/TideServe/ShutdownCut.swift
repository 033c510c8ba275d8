import Synchronization

/// Whether a streamed reply was cut because the server stops, so that its stream ends with an
/// error event that says so instead of a connection closed mid-reply.
final class ShutdownCut: Sendable {
    private let state = Mutex(false)

    /// Marks the reply as cut by the stop.
    func cut() { state.withLock { $0 = true } }

    /// Whether ``cut()`` was called.
    var happened: Bool { state.withLock { $0 } }

    /// A streamed reply cut by the stop, after `generatedTokens` tokens: what ends its stream.
    struct Happened: Error {
        let generatedTokens: Int
    }

    /// How long a reply may run once the server is told to stop: the grace less the time its
    /// last words need to reach the client (a second, or half of a shorter grace).
    static func delay(within grace: Duration) -> Duration {
        max(.zero, grace - min(.seconds(1), grace / 2))
    }
}
