import TideCore
import TideLua

/// What `tide serve` was started with: the model's name for clients, the defaults of every
/// request, the plugins applied to every request, and the key clients must send.
public struct ServeConfiguration: Sendable {
    /// The name clients use in `model` and see in `GET /v1/models`.
    public var modelName: String
    /// Generation parameters for the fields a request leaves out.
    public var parameters: GenerationParameters
    /// Plugin specs (`NAME key=value …`), in hook order; each request gets fresh instances.
    public var plugins: [PluginSpec]
    /// Where plugin names are looked up.
    public var locator: PluginLocator
    /// The plugin sandbox's limits.
    public var limits: LuaLimits
    /// Whether a plugin error fails the request (else the plugin is skipped for the rest of it).
    public var strict: Bool
    /// The bearer token clients must send; `nil` for none.
    public var apiKey: String?

    /// A configuration serving `modelName` with Tide's default parameters and no plugins.
    public init(modelName: String, parameters: GenerationParameters = GenerationParameters(), plugins: [PluginSpec] = [],
                locator: PluginLocator = .standard, limits: LuaLimits = LuaLimits(), strict: Bool = false,
                apiKey: String? = nil) {
        self.modelName = modelName
        self.parameters = parameters
        self.plugins = plugins
        self.locator = locator
        self.limits = limits
        self.strict = strict
        self.apiKey = apiKey
    }
}
