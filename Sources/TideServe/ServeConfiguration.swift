import TideCore
import TideLua

/// What `tide serve` was started with: the model's name for clients, the defaults of every
/// request, the plugins applied to every request, the key clients must send, and the limits that
/// keep one client from holding up the others.
public struct ServeConfiguration: Sendable {
    /// The name clients see in `GET /v1/models`; a request may name the model otherwise,
    /// unless ``strictModel``.
    public var modelName: String
    /// Whether a request naming another model is refused (404), as OpenAI does; by default any
    /// name is taken for this server's model, as llama-server does.
    public var strictModel = false
    /// Where the model runs (``ModelDescription/placement``), for `GET /health`; `nil` if unknown.
    public var placement: String?
    /// The system prompt of a request that has none (the model's, or `--system`); `nil` or
    /// empty for none.
    public var systemPrompt: String?
    /// Generation parameters for the fields a request leaves out.
    public var parameters: GenerationParameters
    /// The plugins, in hook order, read when the server starts; each request gets fresh instances.
    public var plugins: [PluginSource]
    /// The plugin sandbox's limits.
    public var limits: LuaLimits
    /// What a plugin error does: skip the plugin for the rest of the request, or fail the request.
    public var hookErrorPolicy: HookErrorPolicy
    /// The bearer token clients must send; `nil` for none.
    public var apiKey: String?
    /// Request sizes, timeouts, connections and the grace of a stop.
    public var serverLimits: ServerLimits
    /// Makes what records one request's exchange, given its endpoint (`/v1/chat/completions`);
    /// `nil` records nothing (`tide serve --log` sets the conversation log).
    public var recorder: (@Sendable (_ endpoint: String) -> (any ExchangeRecorder)?)?

    /// A configuration serving `modelName` with Tide's default parameters and no plugins.
    public init(modelName: String, parameters: GenerationParameters = GenerationParameters(), plugins: [PluginSource] = [],
                limits: LuaLimits = LuaLimits(), hookErrorPolicy: HookErrorPolicy = .disableHook, apiKey: String? = nil,
                serverLimits: ServerLimits = ServerLimits()) {
        self.modelName = modelName
        self.parameters = parameters
        self.plugins = plugins
        self.limits = limits
        self.hookErrorPolicy = hookErrorPolicy
        self.apiKey = apiKey
        self.serverLimits = serverLimits
    }
}
