import Foundation
import Synchronization

/// The MCP servers Tide has started and not yet ended, so that none outlives it: when Tide
/// exits, each still running is killed. (A server also sees its input close when Tide ends in
/// any other way, which ends a well-behaved one.)
final class ChildProcesses: Sendable {
    static let shared = ChildProcesses()

    private let running = Mutex<[Int32: Process]>([:])

    private init() {
        // A server that has exited closes its input: writing to it must be an error (EPIPE) that
        // fails the call, not a signal that ends Tide.
        signal(SIGPIPE, SIG_IGN)
        atexit {
            for process in ChildProcesses.shared.running.withLock({ Array($0.values) }) where process.isRunning {
                kill(process.processIdentifier, SIGKILL)
            }
        }
    }

    /// Remembers a started child.
    func add(_ process: Process) {
        running.withLock { $0[process.processIdentifier] = process }
    }

    /// Ends `process`, whose input is closed: it gets `grace` to exit, then SIGTERM and as long
    /// again, then SIGKILL.
    func end(_ process: Process, within grace: Duration) async {
        defer { _ = running.withLock { $0.removeValue(forKey: process.processIdentifier) } }
        for signal in [nil, SIGTERM, SIGKILL] {
            if let signal, process.isRunning { kill(process.processIdentifier, signal) }
            let deadline = ContinuousClock.now + grace
            while process.isRunning && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if !process.isRunning { return }
        }
    }
}
