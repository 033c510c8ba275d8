import TideCore

/// The MCP servers a command runs (`--mcp`, repeatable): started side by side before anything
/// is generated, their tools offered as hooks beside the plugins', ended together.
///
/// ```swift
/// let servers = try await MCPServers.start([try MCPServerSpec(parsing: "mcp-server-time")])
/// let session = ChatSession(backend: backend, hooks: plugins + servers.hooks())
/// // … replies …
/// await servers.close()
/// ```
public final class MCPServers: Sendable {
    /// The running servers, in the order given.
    public let connections: [MCPConnection]

    private init(connections: [MCPConnection]) {
        self.connections = connections
    }

    /// None.
    public static let none = MCPServers(connections: [])

    /// Starts every server in `specs` at once; if one cannot start, the others are ended and the
    /// error says which and why. Two servers of one name are refused before any starts.
    public static func start(_ specs: [MCPServerSpec], timeouts: MCPTimeouts = MCPTimeouts()) async throws -> MCPServers {
        if let twice = specs.map(\.name).first(where: { name in specs.count { $0.name == name } > 1 }) {
            throw MCPSpecError("two MCP servers are named \(twice), and their tools would be too: name each ('NAME: COMMAND')")
        }
        guard !specs.isEmpty else { return .none }
        var started: [Int: MCPConnection] = [:]
        var failure: (any Error)?
        await withTaskGroup(of: (Int, Result<MCPConnection, any Error>).self) { group in
            for (index, spec) in specs.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await MCPConnection.start(spec, timeouts: timeouts)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for await (index, result) in group {
                switch result {
                case .success(let connection): started[index] = connection
                case .failure(let error): failure = failure ?? error
                }
            }
        }
        if let failure {
            for connection in started.values { await connection.close() }
            throw failure
        }
        return MCPServers(connections: specs.indices.compactMap { started[$0] })
    }

    /// The tools of each server, for one conversation.
    public func tools() -> [any ToolProvider] {
        connections.map(MCPServerTools.init(connection:))
    }

    /// Ends every server.
    public func close() async {
        for connection in connections { await connection.close() }
    }

    /// Ends the servers Tide started, and whatever they started, when SIGTERM or SIGHUP comes
    /// (and SIGINT, with `includingInterrupt`) and no other handler takes it (``SignalHandlers``:
    /// Ctrl-C stopping a reply), then ends Tide with status 128 + the signal's number, as a shell
    /// reports it: for a command with no graceful stop of its own (`tide serve` has one, and
    /// closes its servers after it). The servers start in sessions of their own, so the terminal's
    /// Ctrl-C does not reach them: without this they would outlive a Tide it ended. At exit they
    /// are ended anyway.
    public static func endOnTerminationSignals(includingInterrupt: Bool = false) {
        ChildProcesses.shared.endOnTerminationSignals(interrupt: includingInterrupt)
    }
}
