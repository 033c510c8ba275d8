import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server a test starts on loopback: its output goes to a log file, and it is ready once
/// `GET readyPath` answers 200.
public final class ServerProcess {
    /// The server could not start.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Its base URL (`http://127.0.0.1:PORT`).
    public let url: URL
    private let process = Process()
    private let log: URL

    /// Starts `executable` with `arguments` (and `environment` added to the test's) and waits up
    /// to `timeout` for `url/readyPath`.
    public init(_ executable: URL, arguments: [String], environment: [String: String] = [:], port: Int, readyPath: String,
                timeout: Duration) async throws {
        url = URL(string: "http://127.0.0.1:\(port)")!
        log = FileManager.default.temporaryDirectory.appendingPathComponent("\(executable.lastPathComponent)-\(port).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw Failure(description: "cannot create the server's log \(log.path)")
        }
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw Failure(description: "the server ended:\n\(tail(2000))") }
            if let (_, response) = try? await URLSession.shared.data(from: url.appendingPathComponent(readyPath)),
               (response as? HTTPURLResponse)?.statusCode == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill()
        throw Failure(description: "the server did not answer within \(timeout):\n\(tail(2000))")
    }

    /// The last `count` characters of what the server printed.
    public func tail(_ count: Int) -> String {
        String(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(count))
    }

    /// Ends the server as `kill -9` would: no goodbye to open connections.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The server's process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// How the server ended: its exit status, or the signal that ended it (an abort is SIGABRT);
    /// `nil` while it runs.
    public var ending: (status: Int32, signalled: Bool)? {
        process.isRunning ? nil : (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    /// Asks the server to stop (SIGTERM), and kills it if it has not within 10 s.
    public func stop() {
        if terminate(waitingAtMost: .seconds(10)) == nil { kill() }
    }

    /// Sends SIGTERM and waits for the server to end: how long it took, or `nil` if it still
    /// runs after `limit`.
    public func terminate(waitingAtMost limit: Duration) -> Duration? {
        let start = ContinuousClock.now
        process.terminate()
        while process.isRunning, ContinuousClock.now - start < limit { usleep(20_000) }
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        return ContinuousClock.now - start
    }

    /// Ends the server at once (a graceful stop could wait for idle keep-alive connections).
    deinit {
        if process.isRunning { kill() }
    }
}
