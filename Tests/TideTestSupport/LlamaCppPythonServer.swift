import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TideModels

/// llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`, installed by
/// scripts/setup.sh in its own virtual environment) serving the bundled model on a free port.
public final class LlamaCppPythonServer {
    /// Its base URL.
    public var url: URL { process.url }
    /// Its port on 127.0.0.1.
    public let port: Int
    private let process: ServerProcess

    /// The Python of the server's virtual environment (which also has the `openai` client).
    public static var python: URL { SetupCache.folder("llama-server/bin/python") }

    /// Starts the server with a context of `contextSize` tokens and waits until it answers; with
    /// `chatFormat`, its own way of writing prompts instead of the model's template
    /// (`chatml-function-calling` is the one that offers tools).
    public init(contextSize: Int = 2048, chatFormat: String? = nil, port: Int = LoopbackPort.free()) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            throw ServerProcess.Failure(description: "no llama-cpp-python server at \(Self.python.path): run scripts/setup.sh")
        }
        self.port = port
        let model = try ModelStore.standard.resolve(ModelRegistry.defaultModelID).path
        process = try await ServerProcess(Self.python, arguments: [
            "-m", "llama_cpp.server", "--model", model, "--model_alias", "smollm2",
            "--host", "127.0.0.1", "--port", "\(port)", "--n_ctx", "\(contextSize)",
            // Flash attention, as Tide's contexts use it. Without it, this llama.cpp build answers
            // greedy questions with nonsense on an AVX2-only AMD EPYC ("La femme de France, le
            // Grand Croix…" for "What is the capital of France?"), and Tide's answer with it
            // ("The capital of France is Paris.") on both kinds of machine.
            "--flash_attn", "true",
        ] + (chatFormat.map { ["--chat_format", $0] } ?? []), port: port, readyPath: "v1/models", timeout: .seconds(120))
    }

    /// The end of the server's log.
    public var tail: String { process.tail(2000) }

    /// Ends the server as `kill -9` would: no goodbye to open connections (uvicorn's graceful
    /// stop would wait for idle keep-alive connections to close).
    public func kill() {
        process.kill()
    }
}
