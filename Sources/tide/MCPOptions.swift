import ArgumentParser
import TideCore
import TideMCP

/// `--mcp` and `--mcp-timeout`: the MCP servers whose tools the model is offered.
struct MCPOptions: ParsableArguments {
    @Option(name: .customLong("mcp"), help: ArgumentHelp(
        "An MCP server whose tools the model may call, started as a command that speaks MCP on its standard input and output: "
            + "'[NAME:] COMMAND ARGS…' (repeatable; its tools are offered as NAME__TOOL).", valueName: "server"))
    var mcp: [String] = []

    @Option(name: .customLong("mcp-timeout"), parsing: .unconditional,
            help: "Seconds an MCP server may take to start and list its tools, and to answer each call.")
    var mcpTimeout: Int = Int(MCPTimeouts().call.components.seconds)

    func validate() throws {
        do {
            _ = try servers
        } catch {
            throw ValidationError("\(error)")
        }
        if !(1...3600).contains(mcpTimeout) { throw ValidationError("--mcp-timeout must be from 1 to 3600 (seconds), not \(mcpTimeout)") }
    }

    /// The `--mcp` servers, as a recipe lists them.
    var settings: [Sourced] { mcp.map { Sourced($0, from: "--mcp") } }

    /// The `--mcp` servers, read.
    var servers: [MCPServerSpec] {
        get throws { try MCPServerSpec.reading(settings) }
    }

    /// Says which of the server's tools are not offered, and why.
    static func noteLeftOut(_ connection: MCPConnection) {
        for tool in connection.leftOut { Terminal.warn("note: the MCP server \(connection.spec.name)'s tool \(tool); it is not offered") }
    }

    /// How long the servers may take (`--mcp-timeout`).
    var timeouts: MCPTimeouts { MCPTimeouts(start: .seconds(mcpTimeout), call: .seconds(mcpTimeout)) }

    /// Starts the servers a recipe names (the model's, then the `--mcp` ones: a server both name
    /// once; none when none is given); a server that cannot start is an error before generation
    /// starts. Unless `gracefulStop` (`tide serve`, which closes them after its own), SIGTERM,
    /// SIGHUP and Ctrl-C (unless it stops a reply) end them with Tide.
    func start(_ settings: [Sourced], gracefulStop: Bool = false) async throws -> MCPServers {
        let specs = try MCPServerSpec.reading(settings)
        if !gracefulStop && !specs.isEmpty { MCPServers.endOnTerminationSignals(includingInterrupt: true) }
        let servers = try await MCPServers.start(specs, timeouts: timeouts)
        for connection in servers.connections { Self.noteLeftOut(connection) }
        return servers
    }
}
