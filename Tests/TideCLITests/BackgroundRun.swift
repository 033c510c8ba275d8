import Foundation

/// `tide run` started in the background in a folder, watched through its journal (`tide runs
/// list --json` in the same data folder), signalled, and waited for.
final class BackgroundRun {
    private let process = Process()
    private let errors: URL
    private let folder: URL
    private let environment: [String: String]

    /// Starts `tide ARGUMENTS` in `folder` with `environment` added (its `XDG_DATA_HOME` is the journal's).
    init(_ arguments: [String], in folder: URL, environment: [String: String]) throws {
        self.folder = folder
        self.environment = environment
        process.executableURL = TideProcess.executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment
            .merging(["TIDE_CACHE_DIR": TideProcess.freshCacheFolder().path]) { $1 }.merging(environment) { $1 }
        errors = folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
    }

    /// The runs the journal lists, newest first.
    static func runs(environment: [String: String], in folder: URL) throws -> [[String: Any]] {
        try TideProcess.run(["runs", "list", "--json"], environment: environment, workingDirectory: folder).jsonLines
    }

    /// Waits until the journal keeps `kept` runs of cases of its run numbered `run`, or the process ends.
    func wait(untilRun run: Int, keeps kept: Int) throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline && process.isRunning {
            if let watched = try Self.runs(environment: environment, in: folder).first(where: { $0["id"] as? Int == run }),
               watched["kept"] as? Int ?? 0 >= kept { return }
            usleep(50_000)
        }
    }

    /// Sends `signal` to it.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for it to end: its exit status (the signal's number, if one ended it) and its standard error.
    func finish() throws -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: errors, encoding: .utf8))
    }
}
