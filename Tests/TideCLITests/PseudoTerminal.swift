import Foundation

/// Runs `tide` on a pseudo-terminal, as a person at a terminal would: what it writes is read
/// from the terminal's master side, and keys (Ctrl-C included) are typed into it.
final class PseudoTerminal {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let master: Int32
    private let pid: pid_t
    /// Everything the program wrote, with carriage returns removed, and with escape sequences
    /// (colours, cursor moves) removed unless they are kept.
    private(set) var output = ""
    private let keepsEscapes: Bool
    /// Where ``expect(_:timeout:)`` looks from: just after the last text it found.
    private var mark: String.Index

    /// Starts `tide arguments` as a session leader whose controlling terminal is a new
    /// pseudo-terminal of 100 × 40 characters.
    init(_ arguments: [String], environment extra: [String: String?] = [:], keepingEscapes: Bool = false) throws {
        keepsEscapes = keepingEscapes
        // Linux's /dev/ptmx, unlocked and numbered by ioctl (what posix_openpt, unlockpt and
        // ptsname do; glibc hides those from Swift, and the ioctl numbers are function-like
        // macros Swift cannot import: _IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned int)).
        let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
            throw Failure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let slave = "/dev/pts/\(number)"
        var size = winsize(ws_row: 40, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid, so the terminal becomes the child's controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80) // POSIX_SPAWN_SETSID (glibc ≥ 2.26)

        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        // The conversation log of the tests, not the user's.
        environment["XDG_DATA_HOME"] = TideProcess.testDataHome.path
        for (key, value) in extra { environment[key] = value }
        let argv = ([TideProcess.executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, TideProcess.executable.path, &actions, &attributes, argv, envp)
        guard status == 0 else { throw Failure(description: "cannot start tide: \(String(cString: strerror(status)))") }
        pid = child
        mark = output.startIndex
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(master)
    }

    /// Types `text` (`"\u{3}"` is Ctrl-C, `"\u{4}"` Ctrl-D, `"\t"` Tab, `"\r"` Enter).
    func type(_ text: String) {
        var bytes = Array(text.utf8)
        while !bytes.isEmpty {
            let written = write(master, bytes, bytes.count)
            if written > 0 { bytes.removeFirst(written) } else { usleep(1000) }
        }
    }

    /// Waits until the output after the last match holds `text`; returns the output up to and
    /// including it, and moves the mark past it.
    @discardableResult
    func expect(_ text: String, timeout: Duration = .seconds(90)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = output[mark...].range(of: text) {
                defer { mark = found.upperBound }
                return String(output[mark..<found.upperBound])
            }
            guard ContinuousClock.now < deadline, read(waiting: .milliseconds(100)) else {
                throw Failure(description: "no \(text.debugDescription) within \(timeout); the output after the last match:\n"
                              + output[mark...])
            }
        }
    }

    /// Waits until the program reads the terminal key by key (a line editor's raw mode: no
    /// canonical input). Keys typed before that are taken by the terminal's line discipline:
    /// Ctrl-C becomes a signal and Ctrl-D an end of file that the editor never sees.
    func waitUntilEditing(timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        var modes = termios()
        while tcgetattr(master, &modes) == 0, modes.c_lflag & tcflag_t(ICANON) != 0 {
            guard ContinuousClock.now < deadline else { throw Failure(description: "the terminal never left canonical mode") }
            _ = read(waiting: .milliseconds(10))
        }
    }

    /// Waits for the prompt (`text`) and for the line editor to read keys; returns the output
    /// before it.
    @discardableResult
    func prompt(_ text: String = ">>> ") throws -> String {
        let output = try expect(text)
        try waitUntilEditing()
        return output
    }

    /// Reads what is there; `false` once the program has closed the terminal.
    private func read(waiting: Duration) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32(waiting.components.seconds * 1000 + waiting.components.attoseconds / 1_000_000_000_000_000))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Foundation.read(master, &buffer, buffer.count)
        if count > 0 {
            var text = String(decoding: buffer[..<count], as: UTF8.self).replacingOccurrences(of: "\r", with: "")
            if !keepsEscapes { text = text.replacing(/\x1B\[[0-9;?]*[A-Za-z]/, with: "") }
            output += text
            return true
        }
        return count < 0 && errno == EAGAIN
    }

    /// Waits for the program to end and returns its exit status.
    func waitForExit(timeout: Duration = .seconds(30)) throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else { throw Failure(description: "tide did not exit; output:\n\(output)") }
            _ = read(waiting: .milliseconds(50))
        }
        while read(waiting: .zero) {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
