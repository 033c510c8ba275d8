import TideCore

/// An MCP server's tools, offered in the same tool box as Lua plugins' tools, so they take part
/// in the same formats, grammar, rounds, `--tool` choices, policies, approvals and logs.
public final class MCPServerTools: ToolProvider {
    /// The running server.
    public let connection: MCPConnection

    /// The tools of `connection`.
    public init(connection: MCPConnection) {
        self.connection = connection
    }

    /// `mcp:NAME`, as tool clashes and logs show it.
    public var name: String { "mcp:\(connection.spec.name)" }
    public var tools: [ToolDefinition] { connection.tools.map(\.definition) }

    /// Calls the server; an error result, or a server that failed, is a failed result.
    public func runTool(_ call: ToolCall) async throws -> String {
        let (content, failed) = await connection.call(call.name, arguments: call.arguments)
        if failed { throw ToolFailure(content) }
        return content
    }
}
