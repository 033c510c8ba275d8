/// Offers the model tools and runs their calls: a plugin's Lua tools (a plugin is a ``ChatHook``
/// too), an MCP server's. A session gathers the tools of its hooks that are providers and of the
/// providers it is given into one tool box, where they take part in the same formats, grammar,
/// rounds, `--tool` choices, policies, approvals and logs.
public protocol ToolProvider: AnyObject, Sendable {
    /// The name tool clashes and logs show: a plugin's, or `mcp:SERVER`.
    var name: String { get }
    /// The tools offered (a plugin's `tools` table, a server's list); empty for none.
    var tools: [ToolDefinition] { get }
    /// Runs one of ``tools`` on the call's arguments; what it returns is the model's result. A
    /// thrown error becomes a failed result that says why. (A Lua tool runs at once; an MCP
    /// server's waits for its answer.)
    func runTool(_ call: ToolCall) async throws -> String
}
