import Foundation
import Synchronization

/// Runs the `tide` executable built next to the test bundle, as a user would.
struct TideProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// The JSON objects on standard output, one a line.
        var jsonLines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        /// The cases of `tide run --json`: its lines but the closing summary.
        var jsonCases: [[String: Any]] { jsonLines.filter { $0["summary"] == nil } }
        /// The closing summary of `tide run --json`.
        var jsonSummary: [String: Any]? { jsonLines.last?["summary"] as? [String: Any] }
    }

    static var executable: URL {
        // The test bundle and the executable are built into the same folder.
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tide")
    }

    /// Runs `tide` (or another `program`) with `arguments`, `stdin` (text, or the file at
    /// `stdinFile`) as its input, `environment` added to the test's, in `workingDirectory` (else the
    /// test's). A process still running
    /// after `timeout` is killed, and the result says so (status `killedStatus`).
    static func run(_ arguments: [String], stdin: String? = nil, stdinFile: String? = nil,
                    environment: [String: String] = [:], program: URL = executable, workingDirectory: URL? = nil,
                    timeout: Duration = .seconds(900)) throws -> Result {
        let process = Process()
        process.executableURL = program
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        process.arguments = arguments
        // A reply cache of its own (TIDE_CACHE_DIR) unless the test gives one: a test that runs a
        // script another ran generates its replies, as it did before the cache.
        process.environment = ProcessInfo.processInfo.environment
            .merging(["XDG_DATA_HOME": testDataHome.path, "TIDE_CACHE_DIR": freshCacheFolder().path]) { $1 }
            .merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        if let stdinFile {
            guard let file = FileHandle(forReadingAtPath: stdinFile) else { throw CocoaError(.fileReadNoSuchFile) }
            process.standardInput = file
        } else {
            process.standardInput = input
        }
        try process.run()
        if stdinFile == nil {
            if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
            try input.fileHandleForWriting.close()
        }
        let killer = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeout.components.seconds * 1000)), execute: killer)
        defer { killer.cancel() }
        // Read both pipes concurrently so neither can fill up and block the child.
        let errorData = Mutex(Data())
        let reader = Thread { errorData.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while reader.isExecuting || !reader.isFinished { usleep(1000) }
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return Result(status: killed ? killedStatus : process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                      stderr: errorData.withLock { String(decoding: $0, as: UTF8.self) })
    }

    /// The data folder of every `tide` the tests run, unless a test gives its own: the
    /// conversation log of the tests goes there, not into the user's.
    static let testDataHome = FileManager.default.temporaryDirectory.appendingPathComponent("tide-test-data-\(getpid())")

    /// A reply cache folder no other process used.
    static func freshCacheFolder() -> URL {
        testDataHome.appendingPathComponent("cache-\(UUID().uuidString)")
    }

    /// The status of a process killed for outliving its timeout.
    static let killedStatus: Int32 = -9
}

/// How a reply ended, as `--stats`, `/stats` and `--json` give it: the generated-token count and
/// the stop reason.
struct PrintedEnd: Equatable {
    var tokens: Int
    var stop: String

    /// Whether a reply allowed `limit` tokens ended as any reply may, whichever words the model
    /// chose: at the limit, or by the model's own end before it.
    func isWithin(_ limit: Int) -> Bool {
        tokens == limit ? stop == "max-tokens" : tokens < limit && stop == "eos"
    }
}

extension PrintedEnd {
    /// The last generated-token count and stop reason in `--stats` or `/stats` output.
    init?(_ output: String) {
        guard let tokens = output.matches(of: /generated tokens: (\d+)/).last.flatMap({ Int($0.1) }),
              let stop = output.matches(of: /stop: ([a-z-]+)/).last?.1 else { return nil }
        self.init(tokens: tokens, stop: String(stop))
    }
}
