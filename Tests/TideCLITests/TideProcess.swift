import Foundation
import Synchronization

/// Runs the `tide` executable built next to the test bundle, as a user would.
struct TideProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: URL {
        // The test bundle and the executable are built into the same folder.
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tide")
    }

    /// Runs `tide` (or another `program`) with `arguments`, `stdin` as its input and `environment`
    /// added to the test's.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                    program: URL = executable) throws -> Result {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so neither can fill up and block the child.
        let errorData = Mutex(Data())
        let reader = Thread { errorData.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while reader.isExecuting || !reader.isFinished { usleep(1000) }
        return Result(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                      stderr: errorData.withLock { String(decoding: $0, as: UTF8.self) })
    }
}
