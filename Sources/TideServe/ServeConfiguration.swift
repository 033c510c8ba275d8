import TideCore

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
    /// Makes the hooks (the plugins, in hook order) of each request: every request gets fresh instances.
    public var hooks: HookFactory
    /// The server's tools from elsewhere than its plugins (its MCP servers'), shared by every request.
    public var toolProviders: [any ToolProvider] = []
    /// What a plugin error does: skip the plugin for the rest of the request, or fail the request.
    public var hookErrorPolicy: HookErrorPolicy
    /// The bearer token clients must send; `nil` for none.
    public var apiKey: String?
    /// Which web pages may call the server, and which host names it answers to
    /// (`--cors-origin`, `--allowed-hosts`); by default no page, and only its own address.
    public var browserAccess = BrowserAccess()
    /// Whether `GET /metrics` answers with the server's metrics (``ServerMetrics``); off by
    /// default, as llama-server's.
    public var metrics = false
    /// What answers `POST /v1/embeddings` (`--embedding-model`, or the served model's own with
    /// `--embeddings`); `nil` for none (a 501 says how to have one).
    public var embedder: (any TextEmbedder)?
    /// The embedding model's name for clients; `nil` when it is the served model.
    public var embeddingModelName: String?
    /// Request sizes, timeouts, connections and the grace of a stop.
    public var serverLimits: ServerLimits
    /// Makes what records one request's exchange, given its endpoint (`/v1/chat/completions`);
    /// `nil` records nothing (`tide serve --log` sets the conversation log).
    public var recorder: (@Sendable (_ endpoint: String) -> (any ExchangeRecorder)?)?
    /// Where the Responses API's stored responses are kept: the server's memory (the newest 1024)
    /// unless it is given the conversation log's.
    public var responses: any ResponseStore = RecentResponses()
    /// Makes what traces the hook calls of one reply (`--trace-hooks`), given the reply's
    /// source: its completion's id, and its choice when a request asks for several; `nil` traces nothing.
    public var hookTrace: (@Sendable (_ source: String) -> any HookTrace)?
    /// Where the sequences keep their states after long prompts, across restarts
    /// (`--prompt-cache`); `nil` for nowhere.
    public var promptStates: (any PromptStateStore)?

    /// A configuration serving `modelName` with Tide's default parameters and no plugins.
    public init(modelName: String, parameters: GenerationParameters = GenerationParameters(), hooks: HookFactory = .none,
                hookErrorPolicy: HookErrorPolicy = .disableHook, apiKey: String? = nil, serverLimits: ServerLimits = ServerLimits()) {
        self.modelName = modelName
        self.parameters = parameters
        self.hooks = hooks
        self.hookErrorPolicy = hookErrorPolicy
        self.apiKey = apiKey
        self.serverLimits = serverLimits
    }
}
