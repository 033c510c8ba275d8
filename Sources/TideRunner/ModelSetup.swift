import Foundation
import Synchronization
import TideCore
import TideLlama
import TideModels

/// Which model to run and how to open a context on it: what `--model`, `--template`,
/// `--ctx-size`, `--threads`, `--batch-size` and `--gpu-layers` say (and a script's `@model`,
/// `@template`, `@ctx-size`).
public struct ModelSetup: Sendable, Hashable {
    /// A registry name or a path to a `.gguf` file.
    public var model: String
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
    public init(model: String = ModelRegistry.defaultModelID, template: String? = nil, contextSize: Int? = nil,
                threads: Int? = nil, batchSize: Int = 512, gpuLayers: Int = 0) {
        self.model = model
        self.template = template
        self.contextSize = contextSize
        self.threads = threads
        self.batchSize = batchSize
        self.gpuLayers = gpuLayers
    }

    /// The context options this setup asks for.
    public var contextOptions: LlamaContextOptions {
        LlamaContextOptions(contextSize: contextSize, threads: threads, batchSize: batchSize)
    }
}

/// A loaded model with what the registry says about it.
public struct LoadedModel: Sendable {
    /// The weights.
    public let model: LlamaModel
    /// The registry entry, when the model was named rather than given by path.
    public let entry: ModelEntry?

    /// A model already loaded, with its registry entry if it has one.
    public init(model: LlamaModel, entry: ModelEntry?) {
        self.model = model
        self.entry = entry
    }

    /// The system prompt to use when the user gives none (base models have none).
    public var defaultSystemPrompt: String { entry?.defaultSystemPrompt ?? "You are a helpful assistant." }

    /// The chat template for `setup`: its override, else the registry's, else the file's own.
    public func template(for setup: ModelSetup) throws -> ChatTemplate {
        try ChatTemplate(parsing: setup.template ?? entry?.template ?? "model")
    }

    /// A fresh context on this model, with the template and end strings of its registry entry.
    public func makeBackend(_ setup: ModelSetup) throws -> LlamaBackend {
        try LlamaBackend(model: model, options: setup.contextOptions, template: template(for: setup),
                         endOfGenerationStrings: entry?.endOfGenerationStrings ?? [])
    }
}

/// Loads each model file once, however many scripts name it.
public final class ModelCache: Sendable {
    private let loaded = Mutex<[String: LoadedModel]>([:])
    private let store: ModelStore

    /// A cache over `store`.
    public init(store: ModelStore = .standard) {
        self.store = store
    }

    /// The model `name` (a registry name or a path), loaded on first use. `progress` gets the
    /// fraction loaded, from 0 to 1, only when the model is actually read.
    /// Scripts replayed side by side ask at the same time; the lock is held while a model loads,
    /// so each file is read once.
    public func load(_ name: String, gpuLayers: Int = 0, progress: @escaping @Sendable (Double) -> Void = { _ in })
        throws -> LoadedModel
    {
        let resolved = try store.resolve(name)
        return try loaded.withLock { loaded throws -> LoadedModel in
            if let model = loaded[resolved.path] { return model }
            let model = LoadedModel(model: try LlamaModel.load(path: resolved.path, gpuLayers: gpuLayers, progress: progress),
                                    entry: resolved.entry)
            loaded[resolved.path] = model
            return model
        }
    }
}
