import ArgumentParser
import Foundation
import Logging
import TideCache
import TideCore
import TideLog
import TideLua
import TideModels
import TideProvider
import TideRunner
import TideServe

/// `tide serve`: an OpenAI-compatible server on a local model, with plugins applied to every request.
struct ServeCommand: AsyncParsableCommand, TakesGenerationParameters {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a model over an OpenAI-compatible HTTP API, with plugins applied to every request.",
        discussion: """
            Endpoints: POST /v1/chat/completions and POST /v1/completions (a prompt continued as \
            plain text, with no chat template), streamed or not; GET /v1/models, GET /health; \
            POST /v1/embeddings (with --embedding-model or --embeddings); llama-server's POST \
            /tokenize, /detokenize and /apply-template, GET /tokenizer_info; GET /metrics (with --metrics). \
            Concurrent requests decode together as sequences of one batch (--parallel); more \
            requests wait for a free sequence. Sampling options set the defaults that a request's \
            own fields override.

            Limits: a request over --max-messages or --max-characters, or with a list past its \
            bound, is refused with a 400 before any work; a connection whose request is not whole \
            within --request-timeout seconds (or silent as long between requests) is closed; at \
            --max-connections, the connection waiting longest for its request is closed for the \
            next. A request from a web page (Origin) is refused unless --cors-origin allows it. SIGTERM or Ctrl-C stops accepting, lets running replies finish for \
            --shutdown-grace seconds, then closes what is left.

            Examples:
              tide serve
              tide serve --port 9000 --parallel 8 --plugin 'stop-after-sentences sentences=3'
              tide serve --host 0.0.0.0 --api-key "$(cat ~/.config/tide/serve-key)"
              curl http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json' \\
                -d '{"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "Hi"}]}'
            """
    )

    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var pluginOptions: PluginOptions

    @Option(help: "The address to listen on (0.0.0.0 for every interface).")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "The port to listen on.")
    var port = 8080

    @Option(parsing: .unconditional, help: "Requests decoded at once, each in its own sequence of --ctx-size tokens.")
    var parallel = 4

    @Option(help: "The model's name for clients (default: its registry name, or its file's name).")
    var alias: String?

    @Flag(name: .customLong("strict-model"),
          help: "Refuse a request that names another model (404); by default any name is taken for the served model.")
    var strictModel = false

    @Option(parsing: .unconditional,
            help: "The system prompt of a request that has none (default: the model's; \"\" for none).")
    var system: String?

    @Option(name: .customLong("api-key"),
            help: ArgumentHelp("Require 'Authorization: Bearer KEY' on every request but /health (default: no key).",
                               valueName: "key"))
    var apiKey: String?

    @Option(name: .customLong("cors-origin"), help: ArgumentHelp(
        "A web page's origin (https://app.example, or * for any) whose requests the server answers, with CORS headers "
            + "(repeatable); by default requests from web pages are refused with 403.", valueName: "origin"))
    var corsOrigins: [String] = []

    @Option(name: .customLong("allowed-hosts"), parsing: .upToNextOption, help: ArgumentHelp(
        "Host names a request may give besides the address listened on and localhost (checked when listening on loopback, "
            + "or whenever names are given).", valueName: "name"))
    var allowedHosts: [String] = []

    @Flag(inversion: .prefixedNo,
          help: "Keep every request's exchange in the conversation log (tide logs); off by default: a server's clients are other people.")
    var log = false

    @Flag(help: "Answer GET /metrics with the server's metrics in Prometheus' text format (behind --api-key like the rest).")
    var metrics = false

    @Option(name: .customLong("embedding-model"), help: ArgumentHelp(
        "Answer POST /v1/embeddings with this embedding model: a name (such as all-minilm-l6-v2) or a .gguf path.", valueName: "name"))
    var embeddingModel: String?

    @Flag(help: "Answer POST /v1/embeddings with the served model's own states, averaged (as llama-server's --embeddings).")
    var embeddings = false

    @Option(help: "The most messages one request may hold; more is refused with a 400.")
    var maxMessages = ServerLimits().maximumMessages

    @Option(help: "The most characters the messages of one request may hold together; more is refused with a 400.")
    var maxCharacters = ServerLimits().maximumCharacters

    @Option(help: ArgumentHelp("Seconds a connection has to send its whole request (head and body), and may stay silent "
                                   + "between requests, before it is closed.", valueName: "seconds"))
    var requestTimeout = Double(ServerLimits().requestTimeout.components.seconds)

    @Option(parsing: .unconditional, help: ArgumentHelp("Connections served at once; more wait to be accepted (default: \(ServerLimits().maximumConnections), "
                                   + "or half the open-file limit, ulimit -n, if that is lower)."))
    var maxConnections: Int?

    @Option(help: ArgumentHelp("On SIGTERM or Ctrl-C, seconds running replies get to finish before their connections are closed.",
                               valueName: "seconds"))
    var shutdownGrace = Double(ServerLimits().shutdownGrace.components.seconds)

    @Option(name: .customLong("prompt-cache"), help: ArgumentHelp(
        "Keep the sequences' states after long prompts in this folder, across restarts: a request whose prompt starts as one "
            + "read before (a long system prompt) loads that start instead of reading it again (at most 1 GiB; the least "
            + "recently loaded go first).", valueName: "dir"))
    var promptCache: String?

    func validate() throws {
        if modelOptions.remote != nil { throw ValidationError("tide serve runs a local model; --remote does not apply") }
        if !(1...65535).contains(port) { throw ValidationError("--port must be from 1 to 65535, not \(port)") }
        if !(1...64).contains(parallel) { throw ValidationError("--parallel must be from 1 to 64, not \(parallel)") }
        if apiKey?.isEmpty == true { throw ValidationError("--api-key must not be empty") }
        if try sampling.settings.contains(where: { $0.declaration.name == "logprobs" }) {
            throw ValidationError("--logprobs is each request's to ask for (logprobs and top_logprobs); leave it out of tide serve")
        }
        if embeddings, embeddingModel != nil {
            throw ValidationError("--embeddings uses the served model and --embedding-model another: choose one")
        }
        for origin in corsOrigins where origin != "*" {
            guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host?.isEmpty == false,
                  url.path.isEmpty || url.path == "/", url.query == nil else {
                throw ValidationError("--cors-origin takes an origin such as https://app.example or http://localhost:3000 "
                                          + "(scheme, host and port, no path), or *; not '\(origin)'")
            }
        }
        if let name = allowedHosts.first(where: { $0.isEmpty || $0.contains("/") || $0.contains(" ") }) {
            throw ValidationError("--allowed-hosts takes host names such as tide.lan, without scheme or path; not '\(name)'")
        }
        if alias?.isEmpty == true { throw ValidationError("--alias must not be empty: give the name clients should use, or leave --alias out") }
        if maxMessages < 1 { throw ValidationError("--max-messages must be at least 1, not \(maxMessages)") }
        if maxCharacters < 1 { throw ValidationError("--max-characters must be at least 1, not \(maxCharacters)") }
        if !(requestTimeout > 0 && requestTimeout <= 86400) {
            throw ValidationError("--request-timeout must be a number of seconds from 0 to 86400 (0 excluded), not \(requestTimeout)")
        }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1, not \(maxConnections)") }
        if !(shutdownGrace >= 0 && shutdownGrace <= 3600) {
            throw ValidationError("--shutdown-grace must be a number of seconds from 0 to 3600, not \(shutdownGrace)")
        }
    }

    /// The limits asked for; connections are bounded by the open-file limit, which is raised first.
    func serverLimits() throws -> ServerLimits {
        let openFiles = OpenFileLimit.raise()
        // Room for the model, the log and the listening socket besides the connections.
        let reserve = 64
        if let maxConnections, maxConnections > openFiles - reserve {
            throw ValidationError("--max-connections \(maxConnections) needs more files open than the limit of \(openFiles) "
                                      + "allows (ulimit -n); lower it to \(max(1, openFiles - reserve)) or raise the limit")
        }
        return ServerLimits(maximumMessages: maxMessages, maximumCharacters: maxCharacters, requestTimeout: .seconds(requestTimeout),
                            maximumConnections: maxConnections ?? max(1, min(ServerLimits().maximumConnections, openFiles / 2)),
                            shutdownGrace: .seconds(shutdownGrace))
    }

    /// What the banner says of the log: where it goes, or why `--log` is not in force.
    private func logNote(_ database: LogDatabase?) -> String {
        if let database { return " · logging to " + database.path.path }
        guard log, let reason = LogLocation().offReason else { return "" }
        return " · not logging: " + reason
    }

    func run() async throws {
        var sources = RecipeSources(setup: try await modelOptions.setup(), commandLine: { [sampling] in try sampling.parameters(over: $0) },
                                    plugins: pluginOptions.plugins, mcpServers: pluginOptions.mcpOptions.mcp)
        // Clients must not stall one another: a long prompt is read beside the others' replies.
        sources.setup.chunkedPrefill = true
        let recipe = try sources.resolve()
        let setup = recipe.setup
        // Every plugin is made once now, so that a mistake stops the server before it starts.
        _ = try pluginOptions.maker.plugins(recipe.plugins, log: { Terminal.warn($0) })
        let trace = try pluginOptions.traceFile()
        // The MCP servers' tools are the server's own, as plugins' tools are.
        let servers = try await pluginOptions.mcpOptions.start(recipe.mcpServers, gracefulStop: true)
        var configuration = ServeConfiguration(modelName: "", parameters: recipe.parameters,
                                               hooks: try pluginOptions.maker.factory(recipe.plugins),
                                               hookErrorPolicy: pluginOptions.policy, apiKey: apiKey, serverLimits: try serverLimits())
        configuration.toolProviders = servers.tools()
        let model = try ProgressBarModels().model(for: setup)
        guard let batch = try model.makeBatch(setup, sequences: parallel, contextSize: nil) else {
            throw ValidationError("tide serve runs a local model")
        }
        defer { batch.shutdown() }
        configuration.modelName = alias ?? model.name
        configuration.placement = (model as? LocalModel)?.weights.placement.description
        configuration.strictModel = strictModel
        configuration.browserAccess = BrowserAccess(corsOrigins: corsOrigins, allowedHosts: allowedHosts)
        configuration.metrics = metrics
        configuration.systemPrompt = system ?? model.defaultSystemPrompt
        if let promptCache, let store = CacheStore.open(folder: URL(fileURLWithPath: promptCache), warn: {
            Terminal.warn("warning: \($0); requests read their prompts whole. Make the folder writable, or give --prompt-cache another")
        }) {
            // The model file's contents, the machine it runs on, and the setup decide its states.
            let machine = (model as? LocalModel).map { "\($0.machine)" } ?? ""
            configuration.promptStates = store.promptStates(FileDigest.of([FileDigest().of(file: model.identifier) ?? model.identifier,
                                                                           machine, String(describing: setup)]))
        }
        if let embeddingModel {
            configuration.embedder = try Embedders.local(embeddingModel, note: { Terminal.warn($0) })
            configuration.embeddingModelName = ModelStore.isPath(embeddingModel)
                ? URL(fileURLWithPath: embeddingModel).deletingPathExtension().lastPathComponent : embeddingModel
        } else if embeddings {
            configuration.embedder = try Embedders.own(of: model)
        }
        let log = LogOptions.database(enabled: self.log)
        defer { log?.flush() }
        if let log {
            configuration.recorder = { [model = setup.lastingModelName] endpoint in
                ConversationLog(database: log, source: .serve, model: model, origin: endpoint)
            }
        }
        // The Responses API's stored responses (a client's `store`, true unless it says) go in the
        // log's database whatever --log says, so that a chain outlives a restart; in memory when
        // logging is off altogether (tide logs off, TIDE_NO_LOG).
        let stored = log ?? LogOptions.database(enabled: true)
        defer { stored?.flush() }
        if let stored { configuration.responses = ResponseLog(database: stored) }
        if let trace { configuration.hookTrace = { trace.trace(source: $0) } }
        var logger = Logger(label: "tide.serve")
        logger.logLevel = .info
        let server = try ChatServer(batch: batch, configuration: configuration, logger: logger)
        let banner = "tide serve: \(configuration.modelName) on http://\(host):\(port)/v1 · \(parallel) sequences of "
            + "\(batch.contextSizePerSequence) tokens" + (configuration.placement.map { " · runs on \($0)" } ?? "") + " · plugins: "
            + (recipe.plugins.isEmpty ? "none" : recipe.plugins.map { (try? PluginSpec(parsing: $0.text))?.description ?? $0.text }.joined(separator: ", "))
            + (servers.connections.isEmpty ? "" : " · MCP servers: " + servers.connections.map(\.spec.name).joined(separator: ", "))
            + (configuration.apiKey == nil ? "" : " · API key required")
            + (configuration.embedder == nil ? "" : " · embeddings by " + (configuration.embeddingModelName ?? configuration.modelName))
            + logNote(log)
        // After the graceful stop, the MCP servers end too: input closed, SIGTERM, then SIGKILL.
        do {
            try await server.run(host: host, port: port) { Terminal.warn(banner) }
        } catch {
            await servers.close()
            throw error
        }
        await servers.close()
        Terminal.warn("tide serve: stopped")
    }
}
