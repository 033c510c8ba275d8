import ArgumentParser
import Foundation
import TideCore
import TideLlama
import TideModels
import TideProvider

/// Options that choose a model and size its context, shared by every command that generates.
struct ModelOptions: ParsableArguments {
    @Option(name: [.customShort("m"), .customLong("model")], help: ArgumentHelp(
        "A model name (see `tide models list`) or a path to a .gguf file (default: \(ModelRegistry.defaultModelID)); "
            + "with --remote, the model's name on the server (default: the server's only model). "
            + "tide run takes several, each a target of the run.",
        valueName: "name"))
    var models: [String] = []

    /// The model named (`--model`), when one is.
    var model: String? {
        get { models.last }
        set { models = newValue.map { [$0] } ?? [] }
    }

    @Option(name: .customLong("remote"), help: ArgumentHelp(
        "Generate on an OpenAI-compatible server (vLLM, llama-server, Ollama, TGI, tide serve) at this base URL. "
            + "The key is read from TIDE_API_KEY or OPENAI_API_KEY. Without --model, the server's only model. Given "
            + "several times: replicas of one model, replies spread over them.",
        valueName: "url"))
    var remotes: [String] = []

    /// The first `--remote`, if any.
    var remote: String? { remotes.first }

    @Option(name: .customLong("remote-api"), help: ArgumentHelp(
        "The API --remote's server is spoken to in: chat (Chat Completions, every OpenAI-compatible server), messages "
            + "(Anthropic's Messages API) or responses (OpenAI's Responses API). Default: chat.",
        valueName: "api"))
    var remoteAPI: String?

    @Option(name: .customLong("remote-timeout"), parsing: .unconditional, help: ArgumentHelp(
        "Seconds a model's server may stay silent (before its answer or within it) before the reply fails (default: 120).",
        valueName: "seconds"))
    var remoteTimeout: Int?

    @Option(help: "Chat template: `model` (the file's own), `raw` (plain text, for base models) or a llama.cpp name such as chatml, phi3, gemma, llama3.")
    var template: String?

    @Option(name: .customLong("tool-format"), help: ArgumentHelp(
        "How the model is offered tools and writes its calls, for a model whose chat template Tide does not recognise: "
            + ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ") + " (default: the preset's, else as its template tells).",
        valueName: "name"))
    var toolFormat: String?

    @Option(name: .customLong("ctx-size"), parsing: .unconditional, help: "Context size in tokens (default: min(4096, the model's); 4096 for a remote model).")
    var contextSize: Int?

    @Option(parsing: .unconditional,
            help: "Threads for every decode (default: the cores that other work leaves free, decided before each decode).")
    var threads: Int?

    @Option(name: .customLong("batch-size"), parsing: .unconditional, help: "Prompt tokens evaluated per llama_decode call (default: 512).")
    var batchSize: Int?

    @Option(name: .customLong("gpu-layers"), parsing: .unconditional,
            help: "Layers offloaded to a GPU, on a llama.cpp built with one (-1: all; 0: none; default: as many as its free memory holds, else the model's preset's).")
    var gpuLayers: Int?

    @OptionGroup var cacheTypes: KVCacheOptions

    /// `--remote-api`, checked; `nil` when it is not given.
    var checkedRemoteAPI: RemoteAPI? {
        get throws {
            guard let remoteAPI else { return nil }
            guard let api = RemoteAPI(rawValue: remoteAPI) else {
                throw ValidationError("unknown --remote-api '\(remoteAPI)'; choose " + RemoteAPI.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return api
        }
    }

    func validate() throws {
        let contextRange = ModelDescription.contextSizes
        _ = try checkedRemoteAPI
        if remoteAPI != nil, remote == nil { throw ValidationError("--remote-api needs --remote: it says how that server is spoken to") }
        if let contextSize, !contextRange.contains(contextSize) {
            throw ValidationError("--ctx-size must be from \(contextRange.lowerBound) to \(contextRange.upperBound), not \(contextSize)")
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, not \(threads)") }
        if let remoteTimeout, !RemoteModelEntry.timeoutRange.contains(remoteTimeout) {
            throw ValidationError("--remote-timeout must be from 1 to \(RemoteModelEntry.timeoutRange.upperBound) seconds, not \(remoteTimeout)")
        }
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1, not \(batchSize)") }
        if let problem = gpuLayers.flatMap(ModelDescription.gpuLayersProblem) { throw ValidationError("--gpu-layers " + problem) }
        if let toolFormat, (try? ToolCallFormat(naming: toolFormat)) == nil {
            throw ValidationError("unknown --tool-format '\(toolFormat)'; choose " + ToolCallFormat.requirement)
        }
        if let template, (try? ChatTemplate(parsing: template)) == nil {
            throw ValidationError("unknown --template '\(template)'; choose one of: "
                + ChatTemplate.acceptedNames.joined(separator: ", "))
        }
        if remote != nil {
            for remote in remotes {
                do {
                    _ = try RemoteServer(parsing: remote)
                } catch {
                    throw ValidationError("--remote: \(error)")
                }
            }
            if Set(remotes).count < remotes.count { throw ValidationError("--remote names a server twice: give each replica once") }
            if template != nil { throw ValidationError("--template does not apply to --remote: the server renders its prompts") }
            if toolFormat != nil { throw ValidationError("--tool-format does not apply to --remote: the server offers the tools and reads the calls") }
            if cacheTypes.isGiven {
                throw ValidationError("--cache-type-k and --cache-type-v do not apply to --remote: the server keeps its own cache")
            }
        }
    }

    /// The setup these options describe, on `defaultModel` (else the bundled model) when
    /// `--model` is not given. With `--remote` and no `--model`, the server is asked which model
    /// it runs; it must run exactly one.
    func setup(defaultModel: String? = nil) async throws -> ModelSetup {
        guard models.count <= 1 else {
            throw ValidationError("--model is given \(models.count) times: only tide run and tide serve take several models")
        }
        var setup = localSetup(model ?? defaultModel ?? ModelRegistry.defaultModelID)
        setup.remoteTimeout = remoteTimeout.map { .seconds($0) }
        guard let remote else { return setup }
        var server = try RemoteServer(parsing: remote)
        let api = try checkedRemoteAPI ?? .chat
        server.api = api
        setup.server = server
        setup.replicas = try remotes.dropFirst().map { text in
            var replica = try RemoteServer(parsing: text)
            replica.api = api
            return replica
        }
        if model == nil {
            setup.model = try await server.onlyModel(timeout: setup.remoteTimeout, remedy: "choose one with --model")
        }
        return setup
    }
}

extension ModelOptions {
    /// The setup of the local model `name` with these options' template, context, threads,
    /// batch size, GPU layers and tool format (`tide serve` makes one a model it serves).
    func localSetup(_ name: String) -> ModelSetup {
        var setup = ModelSetup(model: name, template: template, contextSize: contextSize, threads: checkedThreads,
                               batchSize: batchSize ?? ModelSetup().batchSize, gpuLayers: gpuLayers)
        setup.toolFormat = toolFormat.flatMap { try? ToolCallFormat(naming: $0) }
        setup.keyCacheType = try? cacheTypes.keyType
        setup.valueCacheType = try? cacheTypes.valueType
        return setup
    }

    /// These options, each one not given taken from `base`: a `--target`'s over the run's.
    func over(_ base: ModelOptions) -> ModelOptions {
        var options = self
        if options.models.isEmpty { options.models = base.models }
        options.remotes = remotes.isEmpty ? base.remotes : remotes
        options.remoteTimeout = remoteTimeout ?? base.remoteTimeout
        options.template = template ?? base.template
        options.toolFormat = toolFormat ?? base.toolFormat
        options.contextSize = contextSize ?? base.contextSize
        options.threads = threads ?? base.threads
        options.batchSize = batchSize ?? base.batchSize
        options.gpuLayers = gpuLayers ?? base.gpuLayers
        options.cacheTypes.key = cacheTypes.key ?? base.cacheTypes.key
        options.cacheTypes.value = cacheTypes.value ?? base.cacheTypes.value
        return options
    }

    /// `--threads`, at most the machine's cores: more make every decoding step wait for
    /// threads that are not running. Says so on stderr when it lowers the count.
    var checkedThreads: Int? {
        guard let threads, threads > LlamaContextOptions.coreCount else { return threads }
        let cores = LlamaContextOptions.coreCount
        Terminal.warn("--threads \(threads) is more than this machine's \(cores) cores; using \(cores) "
            + "(extra threads would wait on each other at every token)")
        return cores
    }

    /// The weights of a local model, for the commands that measure or describe them.
    func loadLocal() async throws -> LlamaModel {
        guard let local = try ProgressBarModels().model(for: try await setup()) as? LocalModel else {
            throw ValidationError("this command needs a local model, not one on a server")
        }
        return local.weights
    }
}
