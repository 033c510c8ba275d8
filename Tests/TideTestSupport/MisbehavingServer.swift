import Foundation

/// An OpenAI-compatible server (Fixtures/misbehaving_server.py) whose streamed reply breaks in
/// the way the last message asks: `malformed`, `error`, `drop`, `stall` or `silent`; any other
/// message gets "Hello there.". It serves one model, `stub`.
public final class MisbehavingServer {
    /// Its base URL.
    public var url: URL { process.url }
    /// Its port on 127.0.0.1.
    public let port: Int
    private let process: ServerProcess

    /// Starts the server on a free port and waits until it answers.
    public init(port: Int = LoopbackPort.free()) async throws {
        self.port = port
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/misbehaving_server.py")
        process = try await ServerProcess(URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", script.path, "\(port)"],
                                          port: port, readyPath: "v1/models", timeout: .seconds(30))
    }

    /// The URL of its chat completions, as errors name it.
    public var completions: String { url.absoluteString + "/v1/chat/completions" }
}
