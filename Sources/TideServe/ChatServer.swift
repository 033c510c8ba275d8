import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import TideAnthropic
import TideCore
import TideFormat
import TideOpenAI

/// `tide serve`: an OpenAI-compatible server on one model. `POST /v1/chat/completions` and
/// `POST /v1/completions` (streamed as server-sent events, or whole, with `usage`), Anthropic's
/// `POST /v1/messages` and its `count_tokens` (`MessagesEndpoint.swift`), OpenAI's Responses API
/// (`ResponsesEndpoint.swift`),
/// `GET /v1/models`, `GET /health`, `POST /v1/embeddings` (`EmbeddingEndpoint.swift`), llama-server's
/// tokenizer endpoints (`TokenizerEndpoints.swift`),
/// and `GET /metrics` (``ServerMetrics``, with `--metrics`).
/// Every request runs the configured plugins, in fresh instances; concurrent requests decode as
/// parallel sequences of one `BackendBatch`.
///
/// ```swift
/// let model = try ModelCache().model(for: ModelSetup())
/// let batch = try model.makeBatch(ModelSetup(), sequences: 4, contextSize: nil)!
/// let server = try ChatServer(batch: batch, configuration: ServeConfiguration(modelName: model.name))
/// try await server.run(host: "127.0.0.1", port: 8080)
/// ```
public final class ChatServer: Sendable {
    /// The server's own settings (its key, limits, log); each served model's requests run with
    /// that model's (``ServedModel/configuration``).
    let configuration: ServeConfiguration
    /// The served models, loaded on demand.
    let roster: ModelRoster
    /// What the server has done, when it keeps metrics (`--metrics`).
    let metrics: ServerMetrics?
    let logger: Logger
    let started = Int(Date.now.timeIntervalSince1970)
    /// The connections waiting for their request, which a full server sheds and a stop closes.
    let unanswered = UnansweredConnections()

    /// A server of one model, loaded already: every sequence of `batch`.
    public init(batch: any BackendBatch, configuration: ServeConfiguration, logger: Logger = Logger(label: "tide.serve")) throws {
        self.configuration = configuration
        self.logger = logger
        roster = try ModelRoster(loaded: ServedModel(configuration: configuration, sequences: batch.sequenceCapacity) { ModelLoad(batch: batch) },
                                 batch: batch, strict: configuration.strictModel)
        metrics = configuration.metrics ? ServerMetrics() : nil
    }

    /// A server of `models`, each loaded on its first request within `limits`; a request that
    /// names no model gets `defaultModel` (the only model, when there is one). `configuration`
    /// holds the server's own settings.
    public init(models: [ServedModel], limits: LoadingLimits = LoadingLimits(), defaultModel: String? = nil,
                configuration: ServeConfiguration, logger: Logger = Logger(label: "tide.serve")) {
        self.configuration = configuration
        self.logger = logger
        roster = ModelRoster(models: models, limits: limits, defaultModel: defaultModel, strict: configuration.strictModel,
                             note: { [logger] in logger.info("\($0)") })
        metrics = configuration.metrics ? ServerMetrics() : nil
    }

    /// Loads the default model now (a server of one model, which should not start on a model
    /// that cannot load), and tells how it came up: the tokens each sequence holds, and where it runs.
    public func preload() async throws -> (contextSize: Int, placement: String?) {
        let lease = try await lease(named: nil)
        return (lease.model.contextSize, lease.configuration.placement)
    }

    /// Unloads every model: call once the server has stopped.
    public func shutdown() async {
        await roster.shutdown()
    }

    /// The served model a request's `json` body names (its `model`; the default one when it names
    /// none), leased for the request and loaded first if need be.
    func lease(for json: JSONValue) async throws(APIError) -> ModelLease {
        try await lease(named: try Self.modelName(in: json))
    }

    /// The `model` a request's `json` body names; `nil` when it names none.
    static func modelName(in json: JSONValue) throws(APIError) -> String? {
        guard case .object(let object) = json, let model = object["model"] else { return nil }
        switch model {
        case .string(let text): return text
        case .null: return nil
        default: throw .invalid("model must be a string naming a served model (GET /v1/models lists them)", param: "model")
        }
    }

    /// The served model `name` names, leased for a request and loaded first if need be.
    func lease(named name: String?) async throws(APIError) -> ModelLease {
        do {
            return try await roster.lease(name)
        } catch let error as APIError {
            throw error
        } catch {
            throw .unexpected(error)
        }
    }

    /// Listens on `host`:`port` until the process is told to stop (SIGTERM or SIGINT): it then
    /// stops accepting connections, lets running replies finish for the configured grace, and
    /// closes what is left. `onListening` runs once connections are accepted.
    public func run(host: String, port: Int, onListening: @escaping @Sendable () async -> Void = {}) async throws {
        let app = application(host: host, port: port, onListening: onListening)
        // Shut down in reverse: the connections still sending their request close first, then the server stops.
        var services = ServiceGroupConfiguration(services: [app, UnansweredConnectionsCloser(unanswered: unanswered)],
                                                 gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Past the grace, the server's tasks are cancelled: replies stop and connections close.
        services.maximumGracefulShutdownDuration = configuration.serverLimits.shutdownGrace
        do {
            try await ServiceGroup(configuration: services).run()
        } catch {
            throw ListenError(error, host: host, port: port) ?? error
        }
    }

    /// The HTTP application: the endpoints behind the browsers' check (``BrowserOriginCheck``) and
    /// the API-key check, on `host`:`port`, with the connection limits: a request must be whole
    /// within the request timeout (``RequestDeadline``), and at the connection limit the
    /// connection that has waited longest for its request is closed for the next
    /// (``SheddingConnectionLimit``). ``run(host:port:onListening:)`` runs it until a signal; tests drive it
    /// directly.
    public func application(host: String, port: Int, onListening: @escaping @Sendable () async -> Void = {})
        -> some ApplicationProtocol
    {
        let limits = configuration.serverLimits
        let endpoints: [(method: HTTPRequest.Method, path: String, respond: @Sendable (Request) async throws -> Response)] = [
            (.get, "/health", { _ in try await self.health() }),
            (.get, "/v1/models", { _ in try await self.models() }),
            (.post, "/v1/chat/completions", { request in try await self.complete(request, at: .chat) }),
            (.post, "/v1/completions", { request in try await self.complete(request, at: .text) }),
            (.post, "/v1/messages", { request in try await self.messages(request) }),
            (.post, "/v1/messages/count_tokens", { request in try await self.countTokens(request) }),
            (.post, "/v1/responses", { request in try await self.responses(request) }),
            (.get, "/v1/responses/:id", { request in try self.storedResponse(request) }),
            (.delete, "/v1/responses/:id", { request in try self.deleteResponse(request) }),
            (.post, "/v1/embeddings", { request in try await self.embeddings(request) }),
            (.post, "/tokenize", { request in try await self.tokenize(request) }),
            (.post, "/detokenize", { request in try await self.detokenize(request) }),
            (.post, "/apply-template", { request in try await self.applyTemplate(request) }),
            (.get, "/tokenizer_info", { request in try await self.tokenizerInfo(request) }),
            (.get, "/metrics", { _ in try await self.metricsText() }),
        ]
        let router = Router(context: BasicRequestContext.self)
        if let metrics { router.add(middleware: RequestCounting(metrics: metrics, paths: Set(endpoints.map(\.path)))) }
        router.add(middleware: BrowserOriginCheck(access: configuration.browserAccess, host: host, port: port))
        router.add(middleware: BearerTokenCheck(key: configuration.apiKey))
        router.add(middleware: ErrorAnswer(methods: Dictionary(grouping: endpoints) { $0.path }.mapValues { $0.map { $0.method } },
                                           logger: logger))
        for endpoint in endpoints {
            router.on(RouterPath(endpoint.path), method: endpoint.method) { request, _ in try await endpoint.respond(request) }
        }
        let timeout = Self.timeAmount(limits.requestTimeout)
        return Application(router: router,
                           server: .http1(configuration: .init(additionalChannelHandlers: [RequestDeadline(timeout: timeout, unanswered: self.unanswered)],
                                                               idleTimeout: timeout)),
                           configuration: .init(address: .hostname(host, port: port), serverName: "tide",
                                                availableConnectionsDelegate: SheddingConnectionLimit(limits.maximumConnections,
                                                                                                      unanswered: self.unanswered)),
                           onServerRunning: { _ in await onListening() }, logger: logger)
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// `GET /v1/models`: the served models, whether each is loaded, and the embedding model.
    func models() async throws -> Response {
        var list = await roster.listing(created: started)
        if configuration.embedder != nil, let name = configuration.embeddingModelName {
            var model = ModelList.Model(id: name, created: started, ownedBy: "tide")
            model.purpose = "embedding"
            model.loaded = true
            list.append(model)
        }
        return try Response.json(ModelList(data: list))
    }

    /// `GET /metrics`: the metrics in Prometheus' text format; a 501 that says how to keep them
    /// when the server does not.
    func metricsText() async throws(APIError) -> Response {
        guard let metrics else {
            throw APIError(status: 501, message: "this server keeps no metrics: start tide serve with --metrics", type: "not_implemented_error")
        }
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: await metrics.text(models: await roster.loadedModels))))
    }

    func health() async throws -> Response {
        struct Health: Encodable {
            var status = "ok"
            var sequences = 0
            var busy = 0
            var waiting = 0
            var loaded: [String] = []
            var runsOn: String?

            enum CodingKeys: String, CodingKey {
                case status, sequences, busy, waiting, loaded, runsOn = "runs_on"
            }
        }
        // The loaded models' sequences together; where the first of them runs.
        var health = Health()
        for model in await roster.loadedModels {
            health.sequences += model.pool.capacity
            health.busy += await model.pool.busy
            health.waiting += await model.pool.waiting
            health.loaded.append(model.configuration.modelName)
            health.runsOn = health.runsOn ?? model.configuration.placement
        }
        return try Response.json(health)
    }

    /// Answers one completion request to `endpoint`. A streamed one whose model must load first
    /// gets its response at once, opening with a comment that says so (`: loading NAME`, which
    /// clients skip), and any error after that as an error event.
    func complete(_ request: Request, at endpoint: CompletionEndpoint) async throws -> Response {
        let arrived = ContinuousClock.now
        var request = request
        let body = try await readBody(of: &request)
        if let name = try await modelToLoad(forStreamed: body.json) {
            return streamAfterLoading(name, body: request.body) { [self] in
                var (job, lease) = try await readJob(body, at: endpoint)
                job.arrived = arrived
                let reply = ReplyWriter(model: lease.name, job: job, metrics: metrics)
                let runs = try await start(job, on: lease, id: reply.id)
                return (runs, { [logger] runs, writer, shutdown in await reply.stream(runs, into: &writer, logger: logger, shutdown: shutdown) })
            }
        }
        var (job, lease) = try await readJob(body, at: endpoint)
        job.arrived = arrived
        let reply = ReplyWriter(model: lease.name, job: job, metrics: metrics)
        return try await answer(job, on: lease, id: reply.id, body: request.body) { runs in
            try Response.json(try await reply.collect(runs, logger: self.logger))
        } streaming: { [logger] runs, writer, shutdown in
            await reply.stream(runs, into: &writer, logger: logger, shutdown: shutdown)
        }
    }

    /// Starts the replies, one a choice; a prompt that does not fit is the client's error, in the engine's words.
    func start(_ job: CompletionJob, on lease: ModelLease, id: String) async throws -> [CompletionRun] {
        do {
            return try await CompletionRun.start(job, id: id, lease: lease, logger: logger)
        } catch let error as ContextOverflowError {
            throw APIError.invalid(error.description, param: job.endpoint.inputField, code: "context_length_exceeded")
        } catch let error as ToolsUnavailable {
            throw APIError.invalid(error.description, param: "tools")
        } catch let error as ToolSelectionError {
            throw APIError.invalid(error.description, param: "tools")
        } catch let error as LogprobsUnsupported {
            throw APIError.invalid(error.description, param: "logprobs")
        } catch let error as InvalidParameterError {
            // A value only the model can check (a tool's name, a token id), named as the request does.
            throw APIError.invalid("\(error.field) \(error.rule)", param: error.field)
        }
    }

    /// The name of the served model a streamed request's `json` body names, when that model is
    /// not in memory; `nil` for a request that is not streamed or whose model is loaded.
    private func modelToLoad(forStreamed json: JSONValue) async throws(APIError) -> String? {
        guard case .object(let object) = json, object["stream"] == .bool(true) else { return nil }
        let index = try roster.index(of: try Self.modelName(in: json))
        return await roster.isLoaded(index) ? nil : roster.names[index]
    }

    /// The body read as a request to `endpoint`, with the reply format it asks for, over the
    /// defaults of the served model it names, and the lease on that model.
    func readJob(from request: inout Request, at endpoint: CompletionEndpoint) async throws(APIError) -> (job: CompletionJob, lease: ModelLease) {
        try await readJob(try await readBody(of: &request), at: endpoint)
    }

    /// `body` read as a request to `endpoint`, as ``readJob(from:at:)`` reads it.
    func readJob(_ body: (data: Data, json: JSONValue), at endpoint: CompletionEndpoint) async throws(APIError)
        -> (job: CompletionJob, lease: ModelLease)
    {
        // Foundation's decoder keeps no key order, and a schema's property order matters: the
        // fields of a format and of tools are read from the body as parsed in order.
        let what = endpoint == .chat ? "a chat-completion request" : "a completion request"
        func format(_ request: ChatCompletionRequest, _ ordered: JSONValue) throws -> ReplyFormat? {
            request.asksForFormat ? try ReplyFormat.requested(in: ordered) : nil
        }
        switch endpoint {
        case .chat:
            let (decoded, ordered) = (try decode(ChatCompletionRequest.self, from: body.data, what: what), body.json)
            let lease = try await lease(for: ordered)
            do {
                return (try CompletionJob(decoded, format: format(decoded, ordered),
                                          tools: decoded.offersTools ? ToolOffer.requested(in: ordered) : nil,
                                          configuration: lease.configuration, sequences: lease.pool.capacity), lease)
            } catch {
                throw .request(error, context: "The body is not \(what)")
            }
        case .text:
            let (decoded, ordered) = (try decode(TextCompletionRequest.self, from: body.data, what: what), body.json)
            let lease = try await lease(for: ordered)
            do {
                return (try CompletionJob(decoded, format: format(decoded.chat, ordered), configuration: lease.configuration,
                                          sequences: lease.pool.capacity), lease)
            } catch {
                throw .request(error, context: "The body is not \(what)")
            }
        case .messages:
            let ordered = body.json
            let read: MessagesRequest
            do {
                read = try MessagesRequest(parsing: ordered, for: .reply)
            } catch {
                throw .request(error, context: "The body is not a Messages API request")
            }
            let lease = try await lease(named: read.chat.model)
            do {
                return (try CompletionJob(read.chat, format: nil, tools: read.tools, configuration: lease.configuration,
                                          sequences: lease.pool.capacity, endpoint: .messages), lease)
            } catch {
                throw .request(error, context: "The body is not a Messages API request")
            }
        case .responses:
            let read = try await readResponsesRequest(body.json)
            return (read.job, read.lease)
        }
    }

    /// The request's body, up to ``maximumBodyBytes``, with the JSON document it must be: parsed
    /// strictly (``TideFormat/JSONValue/init(parsing:)``, which says where it is not JSON), and
    /// with no key twice in one object — parsers differ on which of two values counts (Foundation's
    /// keeps the first, most keep the last), so a proxy that checked one could be walked around
    /// with the other.
    func readBody(of request: inout Request) async throws(APIError) -> (data: Data, json: JSONValue) {
        let data: Data
        do {
            data = Data(try await request.collectBody(upTo: Self.maximumBodyBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw APIError(status: 413, message: "the request body is over \(Self.maximumBodyBytes >> 20) MiB; send less")
        } catch {
            throw .invalid("the request body ended before it was complete (the client left or stopped sending): \(error)")
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            throw .invalid("The body is not valid JSON: \(error)")
        }
        if let duplicate = json.firstDuplicateKey {
            throw .invalid("The body has the key '\(duplicate.key)' twice in \(duplicate.path.isEmpty ? "its top-level object" : duplicate.path); "
                               + "send each key once", param: duplicate.path.isEmpty ? duplicate.key : "\(duplicate.path).\(duplicate.key)")
        }
        return (data, json)
    }

    /// The largest request body read.
    static let maximumBodyBytes = 16 << 20
}
