import ArgumentParser
import TideCore
import TideLog
import TideLua

/// `--plugin`, `--strict` and the MCP servers' options, shared by every command that generates.
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

    @Option(name: .customLong("trace-hooks"),
            help: ArgumentHelp("Record every hook call as a JSON Lines record in FILE (--trace-hooks alone: on standard error).",
                               valueName: "file"))
    var traceHooks: String?

    @OptionGroup var mcpOptions: MCPOptions

    func validate() throws {
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

    /// The trace `--trace-hooks` asks for, opened; `nil` without it.
    func traceFile() throws -> HookTraceFile? {
        try traceHooks.map { try HookTraceFile(path: $0, warn: { Terminal.warn("warning: " + $0) }) }
    }

    /// `--trace-hooks` given alone (not `--trace-hooks=FILE`) becomes `--trace-hooks=-`: the
    /// option's value is optional, and standard error is its default.
    static func rewritten(_ arguments: [String]) -> [String] {
        guard let end = arguments.firstIndex(of: "--") else { return arguments.map { $0 == "--trace-hooks" ? "--trace-hooks=-" : $0 } }
        return arguments[..<end].map { $0 == "--trace-hooks" ? "--trace-hooks=-" : $0 } + arguments[end...]
    }

    /// The maker of plugins within the sandbox limits these flags choose.
    var maker: PluginMaker { PluginMaker(limits: limits) }
}
