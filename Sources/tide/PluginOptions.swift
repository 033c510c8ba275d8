import ArgumentParser
import TideCore
import TideLua

/// `--plugin` and `--strict`, shared by every command that generates.
struct PluginOptions: ParsableArguments {
    @Option(name: .customLong("plugin"),
            help: ArgumentHelp("A plugin with options, as one argument: 'NAME key=value …' (repeatable; order = hook order).",
                               valueName: "spec"))
    var plugins: [String] = []

    @Flag(help: "Make any plugin error fatal (default: report it, disable the plugin, go on).")
    var strict = false

    /// The error policy the flags choose.
    var policy: HookErrorPolicy { strict ? .failReply : .disableHook }

    /// Loads every plugin, in order; any problem is an error before generation starts.
    func load() throws -> [LuaPlugin] {
        try plugins.map { text in
            try LuaPlugin(spec: PluginSpec(parsing: text), log: { Terminal.warn($0) })
        }
    }
}
