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

    /// Starts `tide serve` with `arguments` (and `environment`: by default, the tests' data folder)
    /// and waits until `/health` answers; with `openFiles`, under that limit on open files (`ulimit -n`).
    init(_ arguments: [String] = [], environment: [String: String] = [:], openFiles: Int? = nil) async throws {
        port = LoopbackPort.free()
        let serve = ["serve", "--port", "\(port)"] + arguments
        let (program, programArguments) = openFiles.map { limit in
            (URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -n \(limit) && exec \"$0\" \"$@\"", TideProcess.executable.path] + serve)
        } ?? (TideProcess.executable, serve)
        process = try await ServerProcess(program, arguments: programArguments,
                                          environment: ["XDG_DATA_HOME": TideProcess.testDataHome.path].merging(environment) { $1 },
                                          port: port, readyPath: "health", timeout: .seconds(60))
    }

    /// The server's process id.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends SIGTERM and waits: how long the server took to end, or `nil` if it runs after `limit`.
    func terminate(waitingAtMost limit: Duration) -> Duration? {
        process.terminate(waitingAtMost: limit)
    }

    /// How the server ended (``ServerProcess/ending``); `nil` while it runs.
    var ending: (status: Int32, signalled: Bool)? { process.ending }

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
        let (status, json, _) = try await send("POST", "v1/chat/completions", body: Data(body.utf8), key: key)
        return (status, json)
    }

    /// `method path` with `body` as it is: the status, the JSON answer and the headers.
    func send(_ method: String, _ path: String, body: Data? = nil, key: String? = nil)
        async throws -> (status: Int, json: [String: Any], headers: [AnyHashable: Any])
    {
        let (status, json, headers, _) = try await sendRaw(method, path, body: body, key: key)
        return (status, json, headers)
    }

    /// `method path` with `body` as it is: the status, the JSON answer (empty when it is none),
    /// the headers and the body's bytes.
    func sendRaw(_ method: String, _ path: String, body: Data? = nil, key: String? = nil)
        async throws -> (status: Int, json: [String: Any], headers: [AnyHashable: Any], data: Data)
    {
        var request = URLRequest(url: url.appendingPathComponent(path))
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:],
                http?.allHeaderFields ?? [:], data)
    }

    /// Runs `script` with the Python that has the `openai` client (installed by scripts/setup.sh);
    /// `sys.argv[1]` is the server's `/v1` URL. Returns what it printed, which must be JSON.
    /// With `program`, another environment's Python (``SetupCache/agentsPython``).
    func python(_ script: String, arguments: [String] = [], program: URL = LlamaCppPythonServer.python) throws -> Any {
        let result = try TideProcess.run(["-c", script, url.absoluteString + "/v1"] + arguments, program: program)
        guard result.status == 0 else { throw ServerProcess.Failure(description: "python failed: \(result.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// Ends the server with SIGTERM, as a user's Ctrl-C would.
    deinit {
        process.stop()
    }
}
