import Foundation
import Synchronization
import TideCore
import TideLlama
import TideModels

/// Which model to run and how to open a context on it: what `--model`, `--remote`,
/// `--remote-timeout`, `--template`, `--ctx-size`, `--threads`, `--batch-size` and
/// `--gpu-layers` say (and a script's `@model`, `@template`, `@ctx-size`).
public struct ModelSetup: Sendable, Hashable {
    /// A registry name or a path to a `.gguf` file; with ``server``, the model's name there.
    public var model: String
    /// The server that runs the model (`--remote`); `nil` to run it here, or as its registry
    /// entry says.
    public var server: RemoteServer?
    /// How long a model's server may stay silent before a reply fails; `nil` for the registry
    /// entry's, else two minutes.
    public var remoteTimeout: Duration?
    /// A chat template override (`raw`, `chatml`, …); `nil` for the registry's, else the file's own.
    public var template: String?
    /// Context size in tokens; `nil` for min(4096, the model's).
    public var contextSize: Int?
    /// Decoding threads; `nil` for every core.
    public var threads: Int?
    /// Prompt tokens per `llama_decode` call.
    public var batchSize: Int
    /// Layers offloaded to a GPU.
    public var gpuLayers: Int

    /// A setup; the defaults are those of `tide generate`.
    public init(model: String = ModelRegistry.defaultModelID, server: RemoteServer? = nil, template: String? = nil,
                contextSize: Int? = nil, threads: Int? = nil, batchSize: Int = 512, gpuLayers: Int = 0) {
        self.model = model
        self.server = server
        self.template = template
        self.contextSize = contextSize
        self.threads = threads
        self.batchSize = batchSize
        self.gpuLayers = gpuLayers
    }

    /// The name to record in a script: a model path made absolute, so that it means the same
    /// file from another folder; a remote model's name as it is.
    public var lastingModelName: String {
        server == nil && ModelStore.isPath(model) ? URL(fileURLWithPath: model).path : model
    }

    /// The context options this setup asks for.
    public var contextOptions: LlamaContextOptions {
        LlamaContextOptions(contextSize: contextSize, threads: threads, batchSize: batchSize)
    }
}

/// Loads each model file once, however many scripts name it.
public final class ModelCache: Sendable {
    private let loaded = Mutex<[String: LoadedModel]>([:])
    private let store: ModelStore
    private let userModels: @Sendable () throws -> UserModels

    /// A cache over `store`, with remote models from `userModels` (read when a name is neither
    /// a path nor a built-in model's).
    public init(store: ModelStore = .standard, userModels: @escaping @Sendable () throws -> UserModels = { try UserModels() }) {
        self.store = store
        self.userModels = userModels
    }

    /// The model `setup` names: on its server, a remote registry entry, or a file loaded on
    /// first use. `progress` gets the fraction loaded, from 0 to 1, only when a file is read.
    /// Scripts replayed side by side ask at the same time; the lock is held while a model loads,
    /// so each file is read once.
    public func load(_ setup: ModelSetup, progress: @escaping @Sendable (Double) -> Void = { _ in }) throws -> LoadedModel {
        if let server = setup.server {
            return .remote(RemoteModel(server: server, name: setup.model, contextSize: setup.contextSize,
                                       timeout: setup.remoteTimeout))
        }
        if ModelRegistry.entry(named: setup.model) == nil, !ModelStore.isPath(setup.model),
           let entry = try userModels().entry(named: setup.model)
        {
            return .remote(RemoteModel(entry: entry, setup: setup))
        }
        let resolved = try store.resolve(setup.model)
        return try loaded.withLock { loaded throws -> LoadedModel in
            if let model = loaded[resolved.path] { return model }
            let model = LoadedModel.local(try LlamaModel.load(path: resolved.path, gpuLayers: setup.gpuLayers, progress: progress),
                                          entry: resolved.entry)
            loaded[resolved.path] = model
            return model
        }
    }
}
