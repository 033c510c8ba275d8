import Foundation
import TideModels

/// llama.cpp's own answers for the default model, from the scripts in `Fixtures/`
/// (`reference_sampling.py`, `reference_logprobs.py`), which drive llama-cpp-python's bindings
/// of the very library this process loaded (`LLAMA_CPP_LIB_PATH`), so that the reference and
/// Tide compute with the same kernels on any CPU or GPU.
public enum LlamaReference {
    /// What `script` printed for `request`, given as JSON after the model's path.
    public static func run(_ script: String, request: some Encodable) throws -> Data {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(script)")
        let model = try ModelStore.standard.resolve(ModelRegistry.defaultModelID).path
        let process = Process()
        process.executableURL = LlamaCppPythonServer.python
        if let library = loadedLibraryFolder {
            process.environment = ProcessInfo.processInfo.environment.merging(["LLAMA_CPP_LIB_PATH": library]) { $1 }
        }
        process.arguments = [file.path, model, String(decoding: try JSONEncoder().encode(request), as: UTF8.self)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServerProcess.Failure(description: "\(script) failed (status \(process.terminationStatus)) for \(request)")
        }
        return data
    }

    /// The folder of the `libllama` this process loaded (Linux's `/proc/self/maps`).
    static var loadedLibraryFolder: String? {
        let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
        let path = maps.split(separator: "\n").compactMap { $0.split(separator: " ").last }.first { $0.contains("/libllama.so") }
        return path.map { URL(fileURLWithPath: String($0)).deletingLastPathComponent().path }
    }
}
