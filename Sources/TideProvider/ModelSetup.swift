import Foundation
import TideCore
import TideLlama
import TideModels

/// Which model to run and how to open a context on it: what `--model`, `--remote`,
/// `--remote-timeout`, `--template`, `--ctx-size`, `--threads`, `--batch-size`,
/// `--gpu-layers`, `--tool-format`, `--cache-type-k` and `--cache-type-v` say (and a script's `@model`, `@template`, `@ctx-size`,
/// `@tool-format`).
public struct ModelSetup: Sendable, Hashable {
    /// A registry name or a path to a `.gguf` file; with ``server``, the model's name there.
    public var model: String
    /// The server that runs the model (`--remote`); `nil` to run it here, or as its registry
    /// entry says.
    public var server: RemoteServer?
    /// More servers of the same model (`--remote` given again): replies are spread over them and
    /// ``server`` (``ReplicaPool``).
    public var replicas: [RemoteServer] = []
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
    /// Layers offloaded to a GPU (``OffloadPlan``): `nil` for the model's preset's, else as many
    /// as the GPU's free memory holds; `-1` for all; `0` for none.
    public var gpuLayers: Int?
    /// How the model calls tools (``ToolCallFormat``): `nil` for the preset's, else the format
    /// its chat template tells. Local models only.
    public var toolFormat: ToolCallFormat?
    /// Whether long prompts are read a paced piece a step beside the replies in progress
    /// (``LlamaContextOptions/chunkedPrefill``): `tide serve`'s.
    public var chunkedPrefill = false
    /// How the KV cache stores keys (`--cache-type-k`): `nil` for the preset's, else f16.
    public var keyCacheType: KVCacheType?
    /// How the KV cache stores values (`--cache-type-v`): `nil` for the preset's, else f16.
    public var valueCacheType: KVCacheType?

    /// A setup; the defaults are those of `tide generate`.
    public init(model: String = ModelRegistry.defaultModelID, server: RemoteServer? = nil, template: String? = nil,
                contextSize: Int? = nil, threads: Int? = nil, batchSize: Int = 512, gpuLayers: Int? = nil) {
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
        var options = LlamaContextOptions(contextSize: contextSize, threads: threads, batchSize: batchSize)
        options.chunkedPrefill = chunkedPrefill
        return options
    }
}

extension ModelSetup {
    /// The defaults the model this setup names brings (a built-in model's, a remote entry's, a
    /// preset's), read from the registries without loading anything; none for a model named on
    /// a server (`--remote`) or by path. ``ModelCache`` gives its models the same. The user's
    /// registry is read only for a name that is neither built in nor a path, so a mistake in it
    /// never stops the bundled model.
    public func modelDefaults() throws -> ModelDefaults {
        if server != nil || ModelStore.isPath(model) { return ModelDefaults() }
        if let entry = ModelRegistry.entry(named: model) { return entry.defaults }
        return try UserModels().defaults(for: model)
    }
}
