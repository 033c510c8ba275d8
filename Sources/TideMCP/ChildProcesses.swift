import Foundation
import Synchronization

/// The MCP servers Tide has started and not yet ended, so that none outlives it: when Tide
/// exits, or a command that asked (``endOnTerminationSignals()``) is ended by SIGTERM or SIGHUP,
/// each still running is killed with its process group (a launcher's child with it: `uvx`,
/// `npx`, `sh -c`). A server also sees its input close when Tide ends in any other way, which
/// ends a well-behaved one.
final class ChildProcesses: Sendable {
    static let shared = ChildProcesses()

    private let running = Mutex<[Int32: Process]>([:])
    private let signalSources = Mutex<[any DispatchSourceSignal]>([])

    private init() {
        atexit { ChildProcesses.shared.killAll() }
    }

    /// Remembers a started child.
    func add(_ process: Process) {
        running.withLock { $0[process.processIdentifier] = process }
    }

    /// Ends `process`, whose input is closed: it gets `grace` to exit, then SIGTERM and as long
    /// again, then SIGKILL, each sent to its process group.
    func end(_ process: Process, within grace: Duration) async {
        defer { _ = running.withLock { $0.removeValue(forKey: process.processIdentifier) } }
        for signal in [nil, SIGTERM, SIGKILL] {
            if let signal, process.isRunning { Self.send(signal, to: process) }
            let deadline = ContinuousClock.now + grace
            while process.isRunning && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if !process.isRunning { return }
        }
    }

    /// Kills every child still running, with its group.
    func killAll() {
        for process in running.withLock({ Array($0.values) }) where process.isRunning {
            Self.send(SIGKILL, to: process)
        }
    }

    /// Kills the children when SIGTERM or SIGHUP comes, then ends the process with the status a
    /// shell gives one that signal ends (128 + its number). For commands without a graceful
    /// stop of their own (`tide serve` has one, and ends its servers after it).
    func endOnTerminationSignals() {
        signalSources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGTERM, SIGHUP] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    ChildProcesses.shared.killAll()
                    _exit(128 + number)
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// Sends `signal` to the process group `process` leads (as it does when started in a session
    /// of its own), else to the process.
    private static func send(_ signal: Int32, to process: Process) {
        let pid = process.processIdentifier
        kill(getpgid(pid) == pid ? -pid : pid, signal)
    }
}
