import Foundation
import TideCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The MCP servers Tide has started, so that nothing they start outlives Tide, however it
/// detaches. A server's processes are itself, whatever stays in its session (each starts in a
/// session of its own: ``ChildProcess``), and their descendants; what leaves the session and
/// its parent (a daemon's double fork and `setsid`) becomes Tide's child (``Subreaper``).
/// When Tide exits, or a command that asked (``endOnTerminationSignals(interrupt:)``) is ended
/// by a signal, all of them are killed, the adopted ones and theirs included.
final class ChildProcesses: Sendable {
    static let shared = ChildProcesses()

    private let running = Mutex<[pid_t: ChildProcess]>([:])
    /// The session of every server started and not yet ended with all its processes: what stays
    /// in one is that server's, after it has exited too. `nil` until a server starts.
    private let sessions = Mutex<Set<pid_t>?>(nil)

    private init() {
        atexit { ChildProcesses.shared.killAll() }
    }

    /// Remembers a started server.
    func add(_ process: ChildProcess) {
        running.withLock { $0[process.pid] = process }
        sessions.withLock { $0 = ($0 ?? []).union([process.pid]) }
    }

    /// Ends `process`, whose input is closed, with its processes: it gets `grace` to exit, then
    /// they all get SIGTERM and as long again, then SIGKILL.
    func end(_ process: ChildProcess, within grace: Duration) async {
        defer { _ = running.withLock { $0.removeValue(forKey: process.pid) } }
        for signal in [nil, SIGTERM, SIGKILL] {
            if let signal { Self.send(signal, to: Self.processes(of: process)) }
            let deadline = ContinuousClock.now + grace
            // What a server that ended by itself leaves running has no input of Tide's to end with: it is not waited for.
            while (signal == nil ? process.isRunning : !Self.processes(of: process).isEmpty) && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if Self.processes(of: process).isEmpty {
                // An empty session's id may be a new process's one day.
                _ = sessions.withLock { $0?.remove(process.pid) }
                return
            }
        }
    }

    /// Kills every process of the servers, the adopted ones and their descendants included. A
    /// process forked meanwhile is found by the next look, until one finds none.
    func killAll() {
        guard let sessions = sessions.withLock({ $0 }) else { return }
        var killed = Set<pid_t>()
        for _ in 0..<16 {
            let table = ProcessTable.read()
            let servers = running.withLock { Set($0.values.filter(\.isRunning).map(\.pid)) }
            let left = table.running(from: servers.union(table.childrenInOtherSessions), sessions: sessions).subtracting(killed)
            if left.isEmpty { break }
            Self.send(SIGKILL, to: left)
            killed.formUnion(left)
        }
    }

    /// Kills the servers' processes when SIGTERM or SIGHUP comes (and SIGINT, with `interrupt`)
    /// and no other handler takes it (``SignalHandlers``: Ctrl-C stopping a reply), then ends the
    /// process with the status a shell gives one that signal ends (128 + its number). For commands
    /// without a graceful stop of their own (`tide serve` has one, and ends its servers after it).
    func endOnTerminationSignals(interrupt: Bool) {
        for number in [SIGTERM, SIGHUP] + (interrupt ? [SIGINT] : []) {
            SignalHandlers.setFallback(number) {
                ChildProcesses.shared.killAll()
                _exit(128 + number)
            }
        }
    }

    /// The processes of `process` still running: itself until it is reaped, what is in its
    /// session, and their descendants.
    private static func processes(of process: ChildProcess) -> Set<pid_t> {
        let running = process.isRunning ? Set([process.pid]) : []
        return ProcessTable.read().running(from: running, sessions: [process.pid]).union(running)
    }

    private static func send(_ signal: Int32, to processes: Set<pid_t>) {
        for pid in processes { kill(pid, signal) }
    }
}
