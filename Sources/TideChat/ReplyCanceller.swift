import Synchronization
import TideCore

/// Lets Ctrl-C, which arrives on another thread, cancel the reply being generated.
public final class ReplyCanceller: Sendable {
    private let running = Mutex<ChatSession?>(nil)

    /// A canceller with no reply running.
    public init() {}

    /// Cancels the running reply; returns `false` when none is running.
    @discardableResult
    public func cancel() -> Bool {
        guard let session = running.withLock({ $0 }) else { return false }
        session.cancelReply()
        return true
    }

    /// Marks `session` as generating a reply until `body` returns.
    func whileReplying<T>(in session: ChatSession, _ body: () async throws -> T) async rethrows -> T {
        running.withLock { $0 = session }
        defer { running.withLock { $0 = nil } }
        return try await body()
    }
}
