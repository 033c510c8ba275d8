import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Tide as the reaper of what its MCP servers leave behind. Once a server starts, Tide is a
/// Linux child subreaper (`PR_SET_CHILD_SUBREAPER`): a process a server starts that detaches —
/// forked twice, in a session of its own — becomes Tide's child when its parent ends, rather
/// than init's, so Tide still finds it and ends it with the servers (``ChildProcesses``). Those
/// that end meanwhile are reaped when SIGCHLD comes; never a child another waits for: a server
/// (its ``ChildProcess`` waits for it) or a child Foundation's `Process` started (in Tide's own
/// session, where an adopted one is not).
final class Subreaper: Sendable {
    static let shared = Subreaper()

    /// The children whose ``ChildProcess`` reaps them, from their start until they are reaped.
    private let waited = Mutex<Set<pid_t>>([])
    private let childEnded = Mutex<(any DispatchSourceSignal)?>(nil)

    private init() {}

    /// Runs `spawn`, which starts a child and gives its id, as the one that reaps it, not this
    /// reaper; the first makes Tide a subreaper.
    func spawning<E: Error>(_ spawn: () throws(E) -> pid_t) throws(E) -> pid_t {
        adopt()
        return try waited.withLock { waited throws(E) in
            let pid = try spawn()
            waited.insert(pid)
            return pid
        }
    }

    /// Says that the child `pid`, started by ``spawning(_:)``, is reaped.
    func reaped(_ pid: pid_t) {
        _ = waited.withLock { $0.remove(pid) }
    }

    private func adopt() {
        childEnded.withLock { source in
            guard source == nil else { return }
            Self.becomeSubreaper()
            // SIGCHLD keeps its default action (it is not ignored: that would reap every child,
            // Foundation's among them, before their waits).
            let signals = DispatchSource.makeSignalSource(signal: SIGCHLD, queue: .global())
            signals.setEventHandler { Subreaper.shared.reapAdopted() }
            signals.resume()
            source = signals
        }
    }

    /// Reaps the adopted children that have ended.
    private func reapAdopted() {
        let table = ProcessTable.read()
        let ended = table.childrenInOtherSessions.filter { table.entries[$0]?.ended == true }
        waited.withLock { waited in
            for pid in ended where !waited.contains(pid) { waitpid(pid, nil, WNOHANG) }
        }
    }

    /// `prctl(PR_SET_CHILD_SUBREAPER, 1)`, found at run time (the Glibc module does not declare
    /// prctl(2)).
    private static func becomeSubreaper() {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        let setChildSubreaper: Int32 = 36
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return }
        _ = unsafeBitCast(symbol, to: Prctl.self)(setChildSubreaper, 1, 0, 0, 0)
    }
}
