import Foundation
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
}
