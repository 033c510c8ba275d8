import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TideModels

/// llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`, installed by
/// scripts/setup.sh in its own virtual environment) serving the bundled model on a free port.
public final class LlamaCppPythonServer {
    /// The server could not start.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Its base URL.
    public let url: URL
    /// Its port on 127.0.0.1.
    public let port: Int
    private let process = Process()
    private let log: URL

    /// The Python of the server's virtual environment.
    public static var python: URL {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return cache.appendingPathComponent("tide/llama-server/bin/python")
    }

    /// Starts the server with a context of `contextSize` tokens and waits until it answers.
    public init(contextSize: Int = 2048, port: Int = LoopbackPort.free()) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            throw Failure(description: "no llama-cpp-python server at \(Self.python.path): run scripts/setup.sh")
        }
        self.port = port
        url = URL(string: "http://127.0.0.1:\(port)")!
        log = FileManager.default.temporaryDirectory.appendingPathComponent("llama-server-\(port).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let model = try ModelStore.standard.resolve(ModelRegistry.defaultModelID).path
        process.executableURL = Self.python
        process.arguments = ["-m", "llama_cpp.server", "--model", model, "--model_alias", "smollm2",
                             "--host", "127.0.0.1", "--port", "\(port)", "--n_ctx", "\(contextSize)"]
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw Failure(description: "the server ended:\n\(tail)") }
            if let (_, response) = try? await URLSession.shared.data(from: url.appendingPathComponent("v1/models")),
               (response as? HTTPURLResponse)?.statusCode == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        kill()
        throw Failure(description: "the server did not answer within 120 s:\n\(tail)")
    }

    /// The end of the server's log.
    public var tail: String {
        String(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(2000))
    }

    /// Ends the server as `kill -9` would: no goodbye to open connections.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Ends the server at once (uvicorn's graceful stop would wait for idle keep-alive
    /// connections to close).
    deinit {
        if process.isRunning { kill() }
    }
}
