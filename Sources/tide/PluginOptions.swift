import ArgumentParser
import TideCore
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

    /// The maker of plugins within the sandbox limits these flags choose.
    var maker: PluginMaker { PluginMaker(limits: limits) }
}
