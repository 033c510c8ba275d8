import TideCore
import TideLog
import TideLua
import TideProvider

/// How a chat starts: what `tide chat`'s options say.
public struct ChatConfiguration: Sendable {
    /// The model and its context.
    public var setup: ModelSetup
    /// The system prompt; `nil` for the model's default, `""` for none.
    public var systemPrompt: String?
    /// The generation parameters.
    public var parameters: GenerationParameters
    /// Plugin specs (`NAME key=value …`), in hook order.
    public var plugins: [String]
    /// Where plugin names are looked up.
    public var locator: PluginLocator
    /// The plugin sandbox's limits.
    public var limits: LuaLimits
    /// The maker of the chat's plugins: found by ``locator``, run within ``limits``.
    public var maker: PluginMaker { PluginMaker(locator: locator, limits: limits) }
    /// What a plugin error does: disable the plugin and go on, or fail the reply (`--strict`).
    public var hookErrorPolicy: HookErrorPolicy
    /// What to do when the conversation outgrows the context.
    public var overflow: ContextOverflowPolicy
    /// How the chat names the setting that gets past an error (`tide chat`: its flag); `nil`
    /// leaves it to the error's words.
    public var remedyName: @Sendable (Remedy) -> String?
    /// The conversation log the chat's exchanges go to (a new logged conversation for each
    /// model); `nil` logs nothing.
    public var log: LogDatabase?
    /// What is asked before each tool call is run (`--approve-tools`); `nil` runs every call.
    public var toolApproval: ToolApproval?
    /// Tools from elsewhere than the plugins (an MCP server's, `--mcp`), after the plugins':
    /// they stay while plugins are loaded and unloaded.
    public var toolProviders: [any ToolProvider] = []
    /// Where hook calls are traced from the start (`--trace-hooks`): `-` for the chat itself
    /// (as `/trace on`), else a JSON Lines file; `nil` for no trace.
    public var trace: String?

    /// A configuration; the defaults are `tide chat`'s.
    public init(setup: ModelSetup = ModelSetup(), systemPrompt: String? = nil,
                parameters: GenerationParameters = GenerationParameters(), plugins: [String] = [],
                locator: PluginLocator = .standard, limits: LuaLimits = LuaLimits(),
                hookErrorPolicy: HookErrorPolicy = .disableHook,
                overflow: ContextOverflowPolicy = .fail, remedyName: @escaping @Sendable (Remedy) -> String? = { _ in nil }) {
        self.setup = setup
        self.systemPrompt = systemPrompt
        self.parameters = parameters
        self.plugins = plugins
        self.locator = locator
        self.limits = limits
        self.hookErrorPolicy = hookErrorPolicy
        self.overflow = overflow
        self.remedyName = remedyName
    }
}
