import Synchronization
import TideCore

/// A hook that records the id of every token a reply keeps: for tests that check which tokens the
/// model chose rather than how they read.
public final class ChosenTokens: ChatHook, Sendable {
    public let name = "chosen"
    public let points: Set<HookPoint> = [.token]
    /// The ids, in order.
    public let ids = Mutex<[Int32]>([])

    /// A hook with nothing recorded.
    public init() {}

    public func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision {
        if let id = token.id { ids.withLock { $0.append(id) } }
        return .pass
    }
}
