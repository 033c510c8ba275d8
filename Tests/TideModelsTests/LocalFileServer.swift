import Foundation

/// The fixture HTTP server (Fixtures/range_server.py) running on loopback for one test.
final class LocalFileServer {
    let directory: URL
    let port: Int
    private let process: Process
    private let lifeline = Pipe()

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tide-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/range_server.py")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, directory.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = lifeline
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            try? lifeline.fileHandleForWriting.close()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    deinit {
        // Closing its standard input ends the server (even behind a pyenv shim).
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// Writes a file of `size` deterministic pseudo-random bytes to serve.
    func publish(_ name: String, size: Int) throws -> Data {
        var state: UInt32 = 2_463_534_242
        let data = Data((0..<size).map { _ -> UInt8 in
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        })
        try data.write(to: directory.appendingPathComponent(name))
        return data
    }

    /// The requests seen so far, as "PATH RANGE" lines.
    var requests: [String] {
        ((try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }
}
