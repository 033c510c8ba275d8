import Foundation
import Synchronization
import TideTestSupport

/// `tide`, built next to the test bundle, run as a user runs it, for the tests of what it leaves
/// behind and what it holds: its input a pipe the test writes to, what it prints kept as it comes.
final class TideCommand: Sendable {
    /// The executable.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tide")
    }

    /// The data folder of every `tide` these tests run, so that their conversation logs stay out of the user's.
    static let dataHome = FileManager.default.temporaryDirectory.appendingPathComponent("tide-mcp-test-data-\(getpid())")

    private let process: Process
    private let input: FileHandle
    private let printed = Mutex(Data())

    /// Starts `tide` with `arguments`; unless `keepingInputOpen`, its input is closed at once (a
    /// command that reads its input reads nothing).
    init(_ arguments: [String], keepingInputOpen: Bool = false) throws {
        process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": Self.dataHome.path]) { $1 }
        let (stdin, output) = (Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = output
        input = stdin.fileHandleForWriting
        output.fileHandleForReading.readabilityHandler = { [self] handle in
            let chunk = handle.availableData
            if chunk.isEmpty { handle.readabilityHandler = nil } else { printed.withLock { $0.append(chunk) } }
        }
        try process.run()
        if !keepingInputOpen { closeInput() }
    }

    /// Its process id.
    var pid: Int32 { process.processIdentifier }

    /// What it has printed so far, on standard output and error together.
    var output: String { String(decoding: printed.withLock { $0 }, as: UTF8.self) }

    /// Writes `text` to its input.
    func write(_ text: String) {
        input.write(Data(text.utf8))
    }

    /// Closes its input.
    func closeInput() {
        try? input.close()
    }

    /// Waits for it to end, up to `limit`: its exit status (128 + the signal's number when a signal
    /// ended it), or `nil` if it still runs.
    func wait(upTo limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        guard !process.isRunning else { return nil }
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Kills it if it still runs.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Processes as ps(1) lists them.
enum ProcessList {
    /// The processes running now (zombies, which have ended, aside) whose command line holds
    /// `text`: each one's id and command line.
    static func running(holding text: String) -> [(pid: Int32, command: String)] {
        let ps = Process()
        ps.executableURL = URL(fileURLWithPath: "/usr/bin/ps")
        ps.arguments = ["-e", "-o", "pid=,stat=,args="]
        let output = Pipe()
        ps.standardOutput = output
        guard (try? ps.run()) != nil else { return [] }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        ps.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let fields = line.wholeMatch(of: /\s*(\d+)\s+(\S+)\s+(.*)/)?.output, let pid = Int32(fields.1),
                  !fields.2.hasPrefix("Z"), fields.3.contains(text) else { return nil }
            return (pid, String(fields.3))
        }
    }
}
