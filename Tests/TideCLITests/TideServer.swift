import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TideTestSupport

/// `tide serve` started as a user would, on a free port, ended with the test.
final class TideServer {
    let port: Int
    private let process: ServerProcess
    /// The base URL, as clients are configured with it.
    var url: URL { process.url }

    /// Starts `tide serve` with `arguments` and waits until `/health` answers.
    init(_ arguments: [String] = []) async throws {
        port = LoopbackPort.free()
        process = try await ServerProcess(TideProcess.executable, arguments: ["serve", "--port", "\(port)"] + arguments,
                                          port: port, readyPath: "health", timeout: .seconds(60))
    }

    /// The end of what the server printed.
    func log(tail count: Int) -> String {
        process.tail(count)
    }

    /// `GET path`'s JSON object.
    func get(_ path: String) async throws -> [String: Any] {
        let (data, _) = try await URLSession.shared.data(from: url.appendingPathComponent(path))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// `POST /v1/chat/completions` with `body` as it is: the status and the JSON answer.
    func post(_ body: String, key: String? = nil) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: url.appendingPathComponent("v1/chat/completions"))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0,
                (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    /// Runs `script` with the Python that has the `openai` client (installed by scripts/setup.sh);
    /// `sys.argv[1]` is the server's `/v1` URL. Returns what it printed, which must be JSON.
    func python(_ script: String, arguments: [String] = []) throws -> Any {
        let result = try TideProcess.run(["-c", script, url.absoluteString + "/v1"] + arguments,
                                         program: LlamaCppPythonServer.python)
        guard result.status == 0 else { throw ServerProcess.Failure(description: "python failed: \(result.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// Ends the server with SIGTERM, as a user's Ctrl-C would.
    deinit {
        process.stop()
    }
}
