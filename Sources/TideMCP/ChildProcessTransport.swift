import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import MCP
import Synchronization

/// MCP over a child process's standard input and output, one JSON message a line, bounded
/// where the SDK's own stdio transport is not: a message over ``MessageScanner/messageLimit``, one
/// nested deeper than ``MessageScanner/nestingLimit`` or one that is not JSON ends the connection
/// with an error that says so, and so does the child's exit, so that nothing waits on a server
/// that is gone; a string is kept only as long as a result can be shown (``MessageScanner``),
/// and what was cut of a result is told by its request (``cuts``). `disconnect()` closes the
/// child's input, then terminates it, then kills it, with whatever it started.
actor ChildProcessTransport: Transport {
    nonisolated let logger: Logger
    /// The results whose content was cut as it arrived, by their request's id, until taken.
    nonisolated let cuts = ResultCuts()
    private let command: [String]
    private let serverName: String
    private var process: ChildProcess?
    private var input: FileHandle?
    private let stream: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    /// The end of the child's standard error, for messages.
    private let errorTail = OutputTail(limit: 2048)
    /// Called once when the connection ends (the child exited, or sent what cannot be read).
    private let onEnd: @Sendable (MCPServerFailure) -> Void

    /// A transport that will run `command`; `onEnd` hears why the connection ended.
    init(command: [String], serverName: String, onEnd: @escaping @Sendable (MCPServerFailure) -> Void) {
        self.command = command
        self.serverName = serverName
        self.onEnd = onEnd
        var logger = Logger(label: "tide.mcp.\(serverName)")
        logger.logLevel = .critical
        self.logger = logger
        (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
    }

    func connect() async throws {
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        let process: ChildProcess
        do {
            process = try ChildProcess(command, environment: Self.environment(), standardInput: stdin.fileHandleForReading.fileDescriptor,
                                       standardOutput: stdout.fileHandleForWriting.fileDescriptor,
                                       standardError: stderr.fileHandleForWriting.fileDescriptor)
        } catch {
            throw MCPServerFailure(server: serverName, message: "could not start \(command[0]): \(error.localizedDescription)")
        }
        ChildProcesses.shared.add(process)
        self.process = process
        input = stdin.fileHandleForWriting
        try? stdin.fileHandleForReading.close()
        try? stdout.fileHandleForWriting.close()
        try? stderr.fileHandleForWriting.close()
        startReading(stdout.fileHandleForReading, stderr: stderr.fileHandleForReading, process: process)
    }

    /// Reads the child's output on threads of their own (their reads block): its messages, as
    /// the scanner finds them; the end of the output ends the stream with why.
    private nonisolated func startReading(_ output: FileHandle, stderr: FileHandle, process: ChildProcess) {
        let (continuation, errorTail, serverName, onEnd, cuts) = (continuation, errorTail, serverName, onEnd, cuts)
        let errorEnded = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while let count = Self.read(stderr, into: &buffer), count > 0 {
                errorTail.append(Data(buffer[..<count]))
            }
            errorEnded.signal()
        }
        Thread.detachNewThread {
            var scanner = MessageScanner()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var failure: MCPServerFailure?
            reading: while let count = Self.read(output, into: &buffer), count > 0 {
                let messages: [MessageScanner.Message]
                do {
                    messages = try buffer.withUnsafeBytes { try scanner.read(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                } catch {
                    let message = error as? MessageScanner.Failure == .tooDeep
                        ? "sent a message that nests arrays and objects deeper than \(MessageScanner.nestingLimit) levels, the most Tide reads"
                        : "sent a message over \(MessageScanner.messageLimit >> 20) MiB"
                    failure = MCPServerFailure(server: serverName, message: message)
                    break
                }
                for message in messages {
                    if let problem = Self.problem(with: message.data) {
                        failure = MCPServerFailure(server: serverName, message: problem)
                        break reading
                    }
                    if let id = message.id, !message.cuts.isEmpty { cuts.record(message.cuts, for: id) }
                    continuation.yield(message.data)
                }
            }
            if failure == nil {
                process.waitUntilExit()
                // Its last words, unless a child of its own keeps standard error open.
                _ = errorEnded.wait(timeout: .now() + 1)
            } else {
                // A server that cannot be read is of no more use: it ends now, not with Tide.
                Task { await ChildProcesses.shared.end(process, within: .seconds(2)) }
            }
            let ended = failure ?? Self.exit(of: process, serverName: serverName, errorTail: errorTail)
            continuation.finish(throwing: ended)
            onEnd(ended)
        }
    }

    /// Why `line` is not a JSON-RPC message (a JSON object or array); `nil` when it may be one.
    /// A line over 1 MiB is left to the SDK to read whole.
    private static func problem(with line: Data) -> String? {
        let first = line.first { $0 != 0x20 && $0 != 0x09 }
        let message: Any? = line.count > 1 << 20 ? (first == UInt8(ascii: "{") || first == UInt8(ascii: "[") ? [:] as [String: Any] : nil)
            : try? JSONSerialization.jsonObject(with: line)
        if message is [String: Any] || message is [Any] { return nil }
        let shown = String(decoding: line.prefix(120), as: UTF8.self)
        return "sent a line that is not a JSON-RPC message: \(shown.debugDescription)"
    }

    /// Writes `data` on a thread of its own: a server that stops reading fills the pipe, and the
    /// write then waits, holding no thread of Swift's pool nor this actor (``disconnect()`` ends
    /// the wait). SIGPIPE is blocked on that thread, so a server that has exited makes the write
    /// fail with EPIPE rather than end Tide.
    private static func write(_ data: Data, to handle: FileHandle) async throws {
        // A descriptor of its own, so that closing the input meanwhile never leaves it writing to
        // a number reused for another file.
        let descriptor = dup(handle.fileDescriptor)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EBADF) }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                defer { close(descriptor) }
                var blocked = sigset_t()
                sigemptyset(&blocked)
                sigaddset(&blocked, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &blocked, nil)
                let failure = data.withUnsafeBytes { bytes -> Int32? in
                    var offset = 0
                    while offset < bytes.count {
                        let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                        if written < 0 {
                            if errno == EINTR { continue }
                            return errno
                        }
                        offset += written
                    }
                    return nil
                }
                // A SIGPIPE left pending on this thread ends with it.
                var pending = sigset_t()
                sigpending(&pending)
                if sigismember(&pending, SIGPIPE) == 1 {
                    var signal: Int32 = 0
                    sigwait(&blocked, &signal)
                }
                if let failure {
                    continuation.resume(throwing: POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// The variables of Tide's environment a server gets: what any program needs (as the official
    /// SDKs pass), not Tide's secrets (`TIDE_API_KEY`, a remote's key). A server that needs one is
    /// given it in its command, as env(1) reads it: `--mcp 'gh: GITHUB_TOKEN=… github-mcp-server'`.
    static let passedVariables: Set<String> = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE",
                                               "TMPDIR", "TZ", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"]

    /// Those variables of Tide's environment, with the folder where `make setup` installs the
    /// reference servers (${XDG_CACHE_HOME:-~/.cache}/tide/mcp/bin) last on the PATH: a command
    /// is found on the user's PATH first, and `mcp-server-time` without one.
    static func environment(_ base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base.filter { passedVariables.contains($0.key) }
        let cache = base["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (base["HOME"] ?? NSHomeDirectory()) + "/.cache"
        let servers = cache + "/tide/mcp/bin"
        environment["PATH"] = (base["PATH"].map { $0 + ":" } ?? "/usr/local/bin:/usr/bin:/bin:") + servers
        return environment
    }

    /// How `process`, which has ended, ended, with the last lines it wrote to standard error.
    private static func exit(of process: ChildProcess, serverName: String, errorTail: OutputTail) -> MCPServerFailure {
        let how = switch process.waitUntilExit() {
        case .exited(let status): "exited with status \(status)"
        case .killed(let signal): "was killed by signal \(signal)"
        }
        let text = errorTail.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let tail = text.isEmpty ? "" : "; its last words on standard error: \(text.split(separator: "\n").suffix(3).joined(separator: " | "))"
        return MCPServerFailure(server: serverName, message: how + tail)
    }

    /// One read(2) of `handle` into `buffer`: how many bytes it gave, waiting for some; 0 at the
    /// end, `nil` on an error. (FileHandle's `read(upToCount:)` waits for the whole count.)
    private static func read(_ handle: FileHandle, into buffer: inout [UInt8]) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno != EINTR { return nil }
        }
    }

    func disconnect() async {
        try? input?.close()
        input = nil
        guard let process else { return }
        self.process = nil
        await ChildProcesses.shared.end(process, within: .seconds(2))
    }

    func send(_ data: Data) async throws {
        guard let input else { throw MCPServerFailure(server: serverName, message: "is not running") }
        do {
            try await Self.write(data + Data([UInt8(ascii: "\n")]), to: input)
        } catch {
            // A server that closed its input has most likely exited: say how, once it has.
            if let process {
                let deadline = ContinuousClock.now + .seconds(1)
                while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
                if !process.isRunning { throw Self.exit(of: process, serverName: serverName, errorTail: errorTail) }
            }
            throw MCPServerFailure(server: serverName, message: "stopped reading its input")
        }
    }

    nonisolated func receive() -> AsyncThrowingStream<Data, any Error> { stream }
}

/// The last bytes of a stream, up to a limit, kept as they arrive.
final class OutputTail: Sendable {
    private let bytes = Mutex<Data>(Data())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func append(_ chunk: Data) {
        bytes.withLock { bytes in
            bytes.append(chunk)
            if bytes.count > limit { bytes = Data(bytes.suffix(limit)) }
        }
    }

    /// What is kept, as UTF-8 text.
    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}

/// Why an MCP server cannot serve: it did not start, exited, sent what cannot be read, or did
/// not answer in time.
public struct MCPServerFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server's name.
    public var server: String
    /// What went wrong, after "the MCP server NAME".
    public var message: String

    public var description: String { "the MCP server \(server) \(message)" }
}
