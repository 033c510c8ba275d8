import Foundation
import TideTestSupport

/// The servers of Tests/Fixtures/mcp that these tests start, with the Python of the virtual
/// environment scripts/setup.sh makes for MCP servers (which has the official SDK).
enum MCPFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mcp")

    /// The Python that runs them.
    static var python: String { MCPTestServers.bin.appendingPathComponent("python").path }

    /// The server that leaves a helper and a daemon behind and ignores SIGTERM (detaching_server.py),
    /// its processes tagged with `marker`; a `polite` one ends with its input.
    static func detaching(_ marker: String, polite: Bool = false) -> [String] {
        [python, folder.appendingPathComponent("detaching_server.py").path, marker] + (polite ? ["polite"] : [])
    }

    /// The server without an SDK that writes large and deep messages (raw_server.py), with `arguments`.
    static func raw(_ arguments: [String]) -> [String] {
        [python, folder.appendingPathComponent("raw_server.py").path] + arguments
    }

    /// The server whose tools take pydantic models (models_server.py).
    static var models: [String] { [python, folder.appendingPathComponent("models_server.py").path] }

    /// `command` run by a shell that first writes its own signal state (the `Sig…` lines of
    /// /proc/PID/status) to `report`: the state the server is started in. Only built-ins read it,
    /// as the shell blocks signals while it forks.
    static func reportingSignals(to report: URL, then command: [String]) -> [String] {
        ["/bin/sh", "-c", #"while read -r line; do case $line in Sig*) echo "$line";; esac; done < /proc/$$/status > "$0"; exec "$@""#,
         report.path] + command
    }

    /// `NAME: COMMAND` for `--mcp` and `@mcp`, each word quoted.
    static func spec(_ name: String, _ command: [String]) -> String {
        "\(name): " + command.map { "'\($0)'" }.joined(separator: " ")
    }
}
