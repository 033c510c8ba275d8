import Foundation
import TideRemote

/// A `tide serve` started for a benchmark on a free loopback port, ended with it.
final class ServeProcess: @unchecked Sendable {
    // Immutable once started; the process is only ended, once.
    let url: URL
    private let process: Process

    /// `executable serve` with `arguments` (its port chosen here: from a base of this process's
    /// own plus `portOffset`, a port another program holds skipped), once it answers.
    init(executable: String, arguments: [String], portOffset: Int = 0) async throws {
        for attempt in 0..<20 {
            let port = 20_000 + Int(getpid() % 20_000) + attempt * 7 + portOffset
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["serve", "--port", "\(port)"] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let url = URL(string: "http://127.0.0.1:\(port)")!
            let deadline = ContinuousClock.now + .seconds(60)
            while process.isRunning, ContinuousClock.now < deadline {
                if (try? await RemoteBackend.modelNames(at: url, timeout: .seconds(2))) != nil {
                    self.url = url
                    self.process = process
                    return
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
                throw BenchmarkError("`tide serve` did not answer on port \(port) within 60 s")
            }
        }
        throw BenchmarkError("`tide serve` could not listen on any of 20 loopback ports")
    }

    /// The memory the server has resident now (`VmRSS`), in bytes; 0 where the system does not say.
    var residentBytes: Int64 { ResidentMemory.bytes(of: process.processIdentifier) }

    /// Ends the server (SIGTERM) and waits for it.
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
