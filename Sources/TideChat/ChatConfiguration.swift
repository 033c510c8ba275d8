import TideCore
import TideLua
import TideRunner

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
    /// Whether a plugin error fails the reply (else the plugin is disabled and the chat goes on).
    public var strict: Bool
    /// What to do when the conversation outgrows the context.
    public var overflow: ContextOverflowPolicy

    /// A configuration; the defaults are `tide chat`'s.
    public init(setup: ModelSetup = ModelSetup(), systemPrompt: String? = nil,
                parameters: GenerationParameters = GenerationParameters(), plugins: [String] = [],
                locator: PluginLocator = .standard, limits: LuaLimits = LuaLimits(), strict: Bool = false,
                overflow: ContextOverflowPolicy = .fail) {
        self.setup = setup
        self.systemPrompt = systemPrompt
        self.parameters = parameters
        self.plugins = plugins
        self.locator = locator
        self.limits = limits
        self.strict = strict
        self.overflow = overflow
    }
}
