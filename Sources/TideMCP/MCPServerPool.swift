/// The MCP servers scripts name (`@mcp`), each started once for the whole run however many
/// scripts name it, and kept until Tide ends.
public actor MCPServerPool {
    private var started: [MCPServerSpec: Task<MCPConnection, any Error>] = [:]
    private let timeouts: MCPTimeouts

    /// A pool whose servers get `timeouts`.
    public init(timeouts: MCPTimeouts = MCPTimeouts()) {
        self.timeouts = timeouts
    }

    /// The running server `spec` names, started on first use; a server that could not start
    /// is tried again by the next script that names it.
    public func connection(for spec: MCPServerSpec) async throws -> MCPConnection {
        let task = started[spec] ?? Task { [timeouts] in try await MCPConnection.start(spec, timeouts: timeouts) }
        started[spec] = task
        do {
            return try await task.value
        } catch {
            // Unless another script has already started it again.
            if started[spec] == task { started[spec] = nil }
            throw error
        }
    }
}
