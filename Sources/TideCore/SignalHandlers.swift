#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Who handles SIGINT, SIGTERM and SIGHUP: one dispatch source per signal for the whole process,
/// made the first time a handler is given and kept. (On Linux, libdispatch installs a handler of
/// its own when a signal's first source starts; setting the signal's disposition after that, as
/// `signal(SIGINT, SIG_IGN)` before a second source would, loses every later delivery to every
/// source: so no other code sets these signals' dispositions once Tide handles them.)
///
/// A signal goes to the handler pushed last and not yet removed (``push(_:_:)``: Ctrl-C stopping a
/// reply); with none, to the signal's fallback (``setFallback(_:_:)``: ending the MCP servers,
/// then Tide); with neither, it does what it does by default (ends Tide, by that signal).
public enum SignalHandlers {
    /// A pushed handler, to remove it.
    public struct Token: Hashable, Sendable {
        let id: Int
    }

    private struct State {
        var sources: [Int32: any DispatchSourceSignal] = [:]
        var pushed: [(token: Token, signal: Int32, handler: @Sendable () -> Void)] = []
        var fallbacks: [Int32: @Sendable () -> Void] = [:]
        var nextID = 0
    }

    private static let state = Mutex(State())

    /// Makes `handler` handle `signal` until ``remove(_:)``, before any handler pushed earlier.
    public static func push(_ signal: Int32, _ handler: @escaping @Sendable () -> Void) -> Token {
        state.withLock { state in
            let token = Token(id: state.nextID)
            state.nextID += 1
            state.pushed.append((token, signal, handler))
            listen(signal, in: &state)
            return token
        }
    }

    /// Stops a pushed handler.
    public static func remove(_ token: Token) {
        state.withLock { $0.pushed.removeAll { $0.token == token } }
    }

    /// Makes `handler` handle `signal` whenever no pushed handler does (replacing an earlier
    /// fallback).
    public static func setFallback(_ signal: Int32, _ handler: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.fallbacks[signal] = handler
            listen(signal, in: &state)
        }
    }

    private static func listen(_ number: Int32, in state: inout State) {
        guard state.sources[number] == nil else { return }
        // Where signal sources watch a signal without handling it (Darwin), it must not end the
        // process meanwhile; on Linux the source's own handler replaces this.
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { deliver(number) }
        source.resume()
        state.sources[number] = source
    }

    private static func deliver(_ number: Int32) {
        let handler = state.withLock { state in
            state.pushed.last { $0.signal == number }?.handler ?? state.fallbacks[number]
        }
        guard let handler else {
            signal(number, SIG_DFL)
            raise(number)
            return
        }
        handler()
    }
}
