import ArgumentParser
import Foundation
import Logging
import TideCache
import TideCore
import TideFiles
import TideLlama
import TideLog
import TideLua
import TideMCP
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

            Several models: --model given again, or --models-dir; a request's model chooses (a \
            404 for one not served; --default-model for requests that name none). Each loads on \
            its first request, with its preset's plugins and parameters; --max-loaded, \
            --memory-budget and --idle-unload unload the idle model used least recently, never \
            one with a request in flight.

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
              tide serve --model smollm2-135m-instruct --model gemma-3-270m --memory-budget 2G --idle-unload 600
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

    @Option(help: "The model's name for clients (default: its registry name, or its file's name); with one model only.")
    var alias: String?

    @Option(name: .customLong("models-dir"), help: ArgumentHelp(
        "Serve every .gguf file in this folder too, each under its file's name (without .gguf).", valueName: "dir"))
    var modelsDirectory: String?

    @Option(name: .customLong("default-model"), help: ArgumentHelp(
        "The served model of a request that names none (default: the only one; with several, model is then required).",
        valueName: "name"))
    var defaultModel: String?

    @Option(name: .customLong("max-loaded"), parsing: .unconditional, help: ArgumentHelp(
        "The most models in memory at once; to load another, the idle one used least recently is unloaded (default: no limit).",
        valueName: "n"))
    var maxLoaded: Int?

    @Option(name: .customLong("memory-budget"), help: ArgumentHelp(
        "The most memory the loaded models' weights and KV caches may take together, estimated before loading (such as 8G or "
            + "900M); idle models are unloaded to make room, and a model that cannot fit is refused (default: no limit).",
        valueName: "size"))
    var memoryBudget: String?

    @Option(name: .customLong("idle-unload"), parsing: .unconditional, help: ArgumentHelp(
        "Unload a model no request has used for this many seconds (default: keep it while there is room).", valueName: "seconds"))
    var idleUnload: Double?

    @Flag(name: .customLong("strict-model"),
          help: "With one model, refuse a request that names another (404); by default any name is taken for it. With several, a name not served is always refused.")
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
        if let maxLoaded, maxLoaded < 1 { throw ValidationError("--max-loaded must be at least 1, not \(maxLoaded)") }
        _ = try checkedMemoryBudget
        if let idleUnload, !(idleUnload > 0 && idleUnload <= 86400 * 7) {
            throw ValidationError("--idle-unload must be a number of seconds from 0 to 604800 (0 excluded), not \(idleUnload)")
        }
        if defaultModel?.isEmpty == true { throw ValidationError("--default-model must name one of the served models") }
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

    /// `--memory-budget` in bytes; `nil` when it is not given.
    var checkedMemoryBudget: Int64? {
        get throws {
            guard let memoryBudget else { return nil }
            guard let count = ByteCount(parsing: memoryBudget), count.bytes > 0 else {
                throw ValidationError("--memory-budget is a size such as 900M or 8G, not '\(memoryBudget)'")
            }
            return Int64(count.bytes)
        }
    }

    /// The models to serve, as `--model` and `--models-dir` name them (the bundled model when
    /// neither does), each with its name for clients.
    func servedModels() throws -> [(name: String, model: String)] {
        var models = modelOptions.models.map { (name: Self.clientName(of: $0), model: $0) }
        if let modelsDirectory {
            let folder = URL(fileURLWithPath: modelsDirectory)
            let files: [String]
            do {
                files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            } catch {
                throw ValidationError("--models-dir \(modelsDirectory) cannot be read (\(error.localizedDescription)); give a folder of .gguf files")
            }
            let found = files.filter { $0.lowercased().hasSuffix(".gguf") }.sorted()
            guard !found.isEmpty else { throw ValidationError("--models-dir \(modelsDirectory) holds no .gguf file") }
            models += found.map { (name: Self.clientName(of: $0), model: folder.appendingPathComponent($0).path) }
        }
        if models.isEmpty { models = [(ModelRegistry.defaultModelID, ModelRegistry.defaultModelID)] }
        if let alias {
            guard models.count == 1 else {
                throw ValidationError("--alias names the one served model; with several, each is served under its own name "
                                          + "(a preset gives a model another name: tide models create)")
            }
            models[0].name = alias
        }
        var seen: [String: String] = [:]
        for model in models {
            if let other = seen[model.name.lowercased()] {
                throw ValidationError("two served models would both be called '\(model.name)' (\(other) and \(model.model)); "
                                          + "rename a file, or serve one through a preset of another name")
            }
            seen[model.name.lowercased()] = model.model
        }
        if let defaultModel, seen[defaultModel.lowercased()] == nil {
            throw ValidationError("--default-model \(defaultModel) is not served; choose one of: " + models.map(\.name).joined(separator: ", "))
        }
        if embeddings, models.count > 1 {
            throw ValidationError("--embeddings uses the served model's own states, and this server serves several: give "
                                      + "--embedding-model NAME instead")
        }
        return models
    }

    /// The name clients give a model named `model` on the command line: a file's name without
    /// `.gguf`, a registry model's name, a preset's.
    static func clientName(of model: String) -> String {
        if ModelStore.isPath(model) { return URL(fileURLWithPath: model).deletingPathExtension().lastPathComponent }
        return ModelRegistry.entry(named: model)?.id ?? model
    }

    func run() async throws {
        let models = try servedModels()
        // Models loaded and unloaded leave freed memory in the allocator's arenas, one per thread
        // that freed it unless they are bounded: at most one a core.
        ProcessMemory.limitArenas(to: LlamaContextOptions.coreCount)
        var base = ServeConfiguration(modelName: models[0].name, hookErrorPolicy: pluginOptions.policy, apiKey: apiKey,
                                      serverLimits: try serverLimits())
        base.strictModel = strictModel
        base.browserAccess = BrowserAccess(corsOrigins: corsOrigins, allowedHosts: allowedHosts)
        base.metrics = metrics
        let trace = try pluginOptions.traceFile()
        if let trace { base.hookTrace = { trace.trace(source: $0) } }
        let promptStore = promptCache.flatMap { folder in
            CacheStore.open(folder: URL(fileURLWithPath: folder), warn: {
                Terminal.warn("warning: \($0); requests read their prompts whole. Make the folder writable, or give --prompt-cache another")
            })
        }
        let log = LogOptions.database(enabled: self.log)
        defer { log?.flush() }
        // The Responses API's stored responses (a client's `store`, true unless it says) go in the
        // log's database whatever --log says, so that a chain outlives a restart; in memory when
        // logging is off altogether (tide logs off, TIDE_NO_LOG).
        let stored = log ?? LogOptions.database(enabled: true)
        defer { stored?.flush() }
        if let stored { base.responses = ResponseLog(database: stored) }
        // The embedder of --embeddings holds the served model's weights; a model loaded apart
        // from it is freed when it is unloaded.
        let sharedCache = embeddings ? ModelCache(machine: .current) : nil
        var mcpStarted: [String: MCPServers] = [:]
        var servedModels: [ServedModel] = []
        var described: [String] = []
        do {
            for model in models {
                var sources = RecipeSources(setup: modelOptions.localSetup(model.model),
                                            commandLine: { [sampling] in try sampling.parameters(over: $0) },
                                            plugins: pluginOptions.plugins, mcpServers: pluginOptions.mcpOptions.mcp)
                // Clients must not stall one another: a long prompt is read beside the others' replies.
                sources.setup.chunkedPrefill = true
                let recipe = try sources.resolve()
                // Every plugin is made once now, so that a mistake stops the server before it starts.
                _ = try pluginOptions.maker.plugins(recipe.plugins, log: { Terminal.warn($0) })
                // The MCP servers' tools are the server's own, as plugins' tools are; models that
                // name the same servers share them.
                let mcpKey = recipe.mcpServers.map(\.text).joined(separator: "\n")
                let servers: MCPServers
                if let started = mcpStarted[mcpKey] {
                    servers = started
                } else {
                    servers = try await pluginOptions.mcpOptions.start(recipe.mcpServers, gracefulStop: true)
                    mcpStarted[mcpKey] = servers
                }
                var configuration = base
                configuration.modelName = model.name
                configuration.parameters = recipe.parameters
                configuration.hooks = try pluginOptions.maker.factory(recipe.plugins)
                configuration.toolProviders = servers.tools()
                configuration.systemPrompt = system ?? recipe.defaults.systemPrompt ?? LocalModel.tideSystemPrompt
                if let log {
                    configuration.recorder = { [model = recipe.setup.lastingModelName] endpoint in
                        ConversationLog(database: log, source: .serve, model: model, origin: endpoint)
                    }
                }
                servedModels.append(served(recipe.setup, configuration: configuration, cache: sharedCache, promptStore: promptStore))
                described.append(Self.describe(plugins: recipe.plugins, servers: servers))
            }
            if let sharedCache, let only = servedModels.first {
                base.embedder = try Embedders.own(of: try ProgressBarModels(cache: sharedCache).model(for: modelOptions.localSetup(models[0].model)))
                base.embeddingModelName = only.name
            }
            if let embeddingModel {
                base.embedder = try Embedders.local(embeddingModel, note: { Terminal.warn($0) })
                base.embeddingModelName = Self.clientName(of: embeddingModel)
            }
        } catch {
            for servers in mcpStarted.values { await servers.close() }
            throw error
        }
        var logger = Logger(label: "tide.serve")
        logger.logLevel = .info
        let limits = LoadingLimits(maximumLoaded: maxLoaded, memoryBudget: try checkedMemoryBudget, idleUnload: idleUnload.map { .seconds($0) })
        let server = ChatServer(models: servedModels, limits: limits, defaultModel: defaultModel, configuration: base, logger: logger)
        let closeAll = { @Sendable [mcpStarted] in
            await server.shutdown()
            for servers in mcpStarted.values { await servers.close() }
        }
        // One model is loaded now, so that a mistake in it stops the server before it starts;
        // of several, each loads on its first request.
        var banner = "tide serve: "
        if servedModels.count == 1 {
            do {
                let loaded = try await server.preload()
                banner += "\(servedModels[0].name) on http://\(host):\(port)/v1 · \(parallel) sequences of \(loaded.contextSize) tokens"
                    + (loaded.placement.map { " · runs on \($0)" } ?? "")
            } catch {
                await closeAll()
                // Said as the command's error, not as the HTTP error a request would get.
                throw (error as? APIError).map { CommandFailure($0.body.error.message) } ?? error
            }
        } else {
            banner += "\(servedModels.count) models on http://\(host):\(port)/v1, each loaded on its first request · \(parallel) sequences each"
                + (maxLoaded.map { " · at most \($0) loaded" } ?? "") + (memoryBudget.map { " · memory budget \($0)" } ?? "")
                + (idleUnload.map { " · unloaded after \(Self.seconds($0)) idle" } ?? "")
                + (defaultModel.map { " · default \($0)" } ?? "")
        }
        banner += " · " + (described.count == 1 ? described[0]
            : zip(servedModels, described).map { "\($0.name) (\($1))" }.joined(separator: ", "))
            + (base.apiKey == nil ? "" : " · API key required")
            + (base.embedder == nil ? "" : " · embeddings by " + (base.embeddingModelName ?? servedModels[0].name))
            + logNote(log)
        // After the graceful stop, the models are unloaded and the MCP servers end too: input
        // closed, SIGTERM, then SIGKILL.
        do {
            try await server.run(host: host, port: port) { [banner] in Terminal.warn(banner) }
        } catch {
            await closeAll()
            throw error
        }
        await closeAll()
        Terminal.warn("tide serve: stopped")
    }

    /// What the banner says of a model's plugins and MCP servers.
    private static func describe(plugins: [Sourced], servers: MCPServers) -> String {
        let names = plugins.map { (try? PluginSpec(parsing: $0.text))?.description ?? $0.text }
        let mcp = servers.connections.map(\.spec.name)
        return "plugins: " + (names.isEmpty ? "none" : names.joined(separator: ", "))
            + (mcp.isEmpty ? "" : " · MCP servers: " + mcp.joined(separator: ", "))
    }

    /// `seconds` as the banner writes them.
    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// The served model of `setup` with `configuration`: estimated and loaded from its file on
    /// demand (weights from `cache` when given, else a cache of its own, freed on unloading),
    /// its sequences keeping their states in `promptStore`'s folder, if any.
    private func served(_ setup: ModelSetup, configuration: ServeConfiguration, cache: ModelCache?, promptStore: CacheStore?) -> ServedModel {
        ServedModel(configuration: configuration, sequences: parallel, footprint: { [parallel] in
            try ModelCache(machine: .current).footprint(for: setup, sequences: parallel)
        }, load: { [parallel] in
            let model = try ProgressBarModels(cache: cache ?? ModelCache(machine: .current)).model(for: setup)
            guard let batch = try model.makeBatch(setup, sequences: parallel, contextSize: nil) else {
                throw ValidationError("tide serve runs a local model")
            }
            let local = model as? LocalModel
            // The model file's contents, the machine it runs on, and the setup decide its states.
            let states = promptStore.map { store in
                store.promptStates(FileDigest.of([FileDigest().of(file: model.identifier) ?? model.identifier,
                                                  local.map { "\($0.machine)" } ?? "", String(describing: setup)]))
            }
            return ModelLoad(batch: batch, placement: local?.weights.placement.description, promptStates: states)
        })
    }
}
