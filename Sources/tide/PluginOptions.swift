import ArgumentParser
import TideCore
import TideLua
import TideMCP

/// `--plugin`, `--strict` and `--mcp`, shared by every command that generates.
struct PluginOptions: ParsableArguments {
    @Option(name: .customLong("plugin"),
            help: ArgumentHelp("A plugin with options, as one argument: 'NAME key=value …' (repeatable; order = hook order).",
                               valueName: "spec"))
    var plugins: [String] = []

    @Flag(help: "Make any plugin error fatal (default: report it, disable the plugin, go on).")
    var strict = false

    @Option(name: .customLong("plugin-instructions"), parsing: .unconditional, help: "Lua instructions a plugin may run per hook call.")
    var instructions: Int64 = LuaLimits().instructions

    @Option(name: .customLong("plugin-memory"), parsing: .unconditional, help: "Memory per plugin, in MiB.")
    var memoryMiB: Int = LuaLimits().memoryBytes >> 20

    @Option(name: .customLong("plugin-timeout"), parsing: .unconditional, help: "Wall-clock guard per hook call, in milliseconds (the work a call may do is --plugin-instructions).")
    var timeoutMilliseconds: Int = Int(LuaLimits().time.components.seconds * 1000)

    @Option(name: .customLong("mcp"), help: ArgumentHelp(
        "An MCP server whose tools the model may call, started as a command that speaks MCP on its standard input and output: "
            + "'[NAME:] COMMAND ARGS…' (repeatable; its tools are offered as NAME__TOOL).", valueName: "server"))
    var mcp: [String] = []

    @Option(name: .customLong("mcp-timeout"), parsing: .unconditional,
            help: "Seconds an MCP server may take to start and list its tools, and to answer each call.")
    var mcpTimeout: Int = Int(MCPTimeouts().call.components.seconds)

    func validate() throws {
        _ = try mcpServers
        if !(1...3600).contains(mcpTimeout) { throw ValidationError("--mcp-timeout must be from 1 to 3600 (seconds), not \(mcpTimeout)") }
        if instructions < 1000 { throw ValidationError("--plugin-instructions must be at least 1000, not \(instructions)") }
        if !(1...16_384).contains(memoryMiB) {
            throw ValidationError("--plugin-memory must be from 1 to 16384 (MiB), not \(memoryMiB)")
        }
        if !(1...3_600_000).contains(timeoutMilliseconds) {
            throw ValidationError("--plugin-timeout must be from 1 to 3600000 (ms), not \(timeoutMilliseconds)")
        }
    }

    /// The sandbox limits the flags choose.
    var limits: LuaLimits {
        LuaLimits(instructions: instructions, memoryBytes: memoryMiB << 20, time: .milliseconds(timeoutMilliseconds))
    }

    /// The error policy the flags choose.
    var policy: HookErrorPolicy { strict ? .failReply : .disableHook }

    /// Loads the model's plugins (its defaults'), then every `--plugin`, in order; any problem
    /// is an error before generation starts.
    func load(after modelPlugins: [String]) throws -> [LuaPlugin] {
        try sources(after: modelPlugins).map { try $0.instantiate(limits: limits, log: { Terminal.warn($0) }) }
    }

    /// The `--mcp` servers, read.
    var mcpServers: [MCPServerSpec] {
        get throws { try mcp.map { try MCPServerSpec(parsing: $0) } }
    }

    /// Starts the `--mcp` servers (none when none is given); a server that cannot start is an
    /// error before generation starts.
    func startMCPServers() async throws -> MCPServers {
        try await MCPServers.start(try mcpServers, timeouts: MCPTimeouts(start: .seconds(mcpTimeout), call: .seconds(mcpTimeout)))
    }

    /// Finds and reads the model's plugins, then every `--plugin`'s file, in order.
    func sources(after modelPlugins: [String]) throws -> [PluginSource] {
        try (modelPlugins + plugins).map { try PluginSource(spec: PluginSpec(parsing: $0)) }
    }
}
