import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A program Tide runs as an MCP server, started by posix_spawn(3) rather than Foundation's
/// `Process`, so that it starts as any program expects to: no signal blocked and every signal
/// at its default action (a child would inherit the mask of the thread that starts it, and
/// Tide's threads block most signals, and whatever Tide ignores, SIGPIPE among them); in a
/// session of its own, so that Ctrl-C at the terminal does not reach it, and whatever it starts
/// without leaving the session is known as its own (``ProcessTable``); and with no descriptor
/// open but its standard input, output and error.
public final class ChildProcess: Sendable {
    /// How a process ended.
    public enum Ending: Sendable, Hashable {
        /// It exited with this status.
        case exited(Int32)
        /// This signal killed it.
        case killed(Int32)
    }

    /// The process's id, which is its session's id too.
    let pid: pid_t
    private let ending = Mutex<Ending?>(nil)
    private let exited = DispatchGroup()

    /// Starts `command`, found on the PATH by env(1) as a shell finds a program (and with its
    /// leading `NAME=value` words as variables), with exactly `environment`, reading
    /// `standardInput` and writing `standardOutput` and `standardError`; a thread of its own
    /// waits for it to end.
    public init(_ command: [String], environment: [String: String], standardInput: Int32, standardOutput: Int32,
                standardError: Int32) throws(POSIXError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, target) in [(standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)] {
            posix_spawn_file_actions_adddup2(&actions, descriptor, target)
        }
        Self.closeFrom(&actions, STDERR_FILENO + 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        // Every signal, 1 to 64: glibc's sigfillset leaves out its two internal ones (32 and 33),
        // which posix_spawn would then set to be ignored, and so they would stay in the program run.
        var every = sigset_t()
        withUnsafeMutableBytes(of: &every) { $0.storeBytes(of: UInt64.max, as: UInt64.self) }
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | Self.newSession))

        let program = "/usr/bin/env"
        let arguments = ([program] + command).map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        pid = try Subreaper.shared.spawning { () throws(POSIXError) -> pid_t in
            var pid: pid_t = 0
            let failure = posix_spawn(&pid, program, &actions, &attributes, arguments, variables)
            if failure != 0 { throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO) }
            return pid
        }
        exited.enter()
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            // The low 7 bits: 0 when it exited (its status above them), else the signal that killed it.
            ending.withLock { $0 = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .killed(status & 0x7f) }
            Subreaper.shared.reaped(pid)
            exited.leave()
        }
    }

    /// Whether it has not ended yet (or has, and is not yet reaped).
    var isRunning: Bool { ending.withLock { $0 == nil } }

    /// Waits for it to end, and says how.
    @discardableResult
    public func waitUntilExit() -> Ending {
        exited.wait()
        return ending.withLock { $0! }
    }

    /// glibc's `POSIX_SPAWN_SETSID` (2.26 and later), which Swift's Glibc module does not declare.
    private static let newSession: Int32 = 0x80

    /// Closes every descriptor from `lowest` up in the child: `posix_spawn_file_actions_addclosefrom_np`
    /// (glibc 2.34), found at run time as the Glibc module does not declare it; without it, each
    /// descriptor open now.
    private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"),
           unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest) == 0 {
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for descriptor in open where descriptor >= lowest { posix_spawn_file_actions_addclose(&actions, descriptor) }
    }
}
