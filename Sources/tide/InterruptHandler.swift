import Foundation
import Synchronization
import TideCore

/// Turns SIGINT into a callback while it lives, instead of ending the process (``SignalHandlers``).
/// Once stopped, Ctrl-C ends Tide again: as the default does, or, once MCP servers have started,
/// after ending them and whatever they started (``MCPServers/endOnTerminationSignals(includingInterrupt:)``).
final class InterruptHandler {
    private let token: SignalHandlers.Token

    init(_ onInterrupt: @escaping @Sendable () -> Void) {
        token = SignalHandlers.push(SIGINT, onInterrupt)
    }

    /// Gives Ctrl-C back.
    func stop() {
        SignalHandlers.remove(token)
    }

    /// On Ctrl-C, says `note` on standard error, then lets Ctrl-C end Tide as it would have
    /// (ending MCP servers first, where some started).
    static func noting(_ note: @escaping @Sendable () -> String) -> InterruptHandler {
        let pushed = Pushed()
        let handler = InterruptHandler {
            Terminal.warn(note())
            if let token = pushed.token.withLock({ $0 }) { SignalHandlers.remove(token) }
            // To the process, as Ctrl-C sends it: the handlers watch the process's signals.
            kill(getpid(), SIGINT)
        }
        pushed.token.withLock { $0 = handler.token }
        return handler
    }

    /// The token of a handler that removes itself.
    private final class Pushed: Sendable {
        let token = Mutex<SignalHandlers.Token?>(nil)
    }
}
