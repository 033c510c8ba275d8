import Synchronization
import TideCore
import TideLlama
import TideModels

/// The standard ``ModelProvider``: models from the registry, `.gguf` paths, servers and the
/// user's remote entries, with each model file loaded once (for each `--gpu-layers` asked for)
/// however many scripts or conversations name it.
public final class ModelCache: ModelProvider {
    private let loaded = Mutex<[LoadKey: LlamaModel]>([:])
    /// What a model's weights are loaded for: the file, and the layers offloaded to a GPU (a
    /// setup asking for other layers than a loaded copy holds gets a copy of its own).
    private struct LoadKey: Hashable {
        var path: String
        var gpuLayers: Int?
    }
    private let store: ModelStore
    private let userModels: @Sendable () throws -> UserModels
    private let machine: SimulatedMachine

    /// A cache over `store`, with remote models from `userModels` (read when a name is neither
    /// a path nor a built-in model's), whose local models run on `machine`: this one, unless
    /// another is simulated (`TIDE_MACHINE`, which the `tide` target reads).
    public init(store: ModelStore = .standard, userModels: @escaping @Sendable () throws -> UserModels = { try UserModels() },
                machine: SimulatedMachine = SimulatedMachine()) {
        self.store = store
        self.userModels = userModels
        self.machine = machine
    }

    /// The model `setup` names: on its server, a remote registry entry, or a file loaded on
    /// first use. Scripts replayed side by side ask at the same time; the lock is held while a
    /// model loads, so each file is read once.
    public func model(for setup: ModelSetup, progress: @escaping @Sendable (Double) -> Void) throws -> any ChatModel {
        let local: LocalSource
        switch try source(for: setup) {
        case .remote(let model): return model
        case .local(let source): local = source
        }
        let key = LoadKey(path: local.resolved.path, gpuLayers: local.gpuLayers)
        let weights = try loaded.withLock { loaded throws -> LlamaModel in
            if let weights = loaded[key] { return weights }
            let weights = try LlamaModel.load(path: local.resolved.path, gpuLayers: local.gpuLayers, contextSize: setup.contextSize ?? 4096,
                                              progress: progress)
            loaded[key] = weights
            return weights
        }
        if let pooling = weights.facts.pooling { throw NotAChatModel(name: setup.model, pooling: pooling) }
        return LocalModel(weights: weights, entry: local.resolved.entry, name: local.defaults == nil ? nil : setup.model,
                          defaults: local.defaults, machine: machine)
    }

    /// The memory the model `setup` names would take loaded for `sequences` sequences, estimated
    /// from its file without loading it (``ModelFootprint``); `nil` for a model on a server.
    public func footprint(for setup: ModelSetup, sequences: Int) throws -> ModelFootprint? {
        guard case .local(let local) = try source(for: setup) else { return nil }
        let defaults = local.defaults ?? local.resolved.entry?.defaults
        return try ModelFootprint(ofFile: local.resolved.path, contextSize: setup.contextSize, sequences: sequences,
                                  key: setup.keyCacheType ?? defaults?.keyCacheType ?? .f16,
                                  value: setup.valueCacheType ?? defaults?.valueCacheType ?? .f16)
    }

    /// A local model's file, with a preset's defaults and the GPU layers asked for.
    private struct LocalSource {
        var resolved: ResolvedModel
        var defaults: ModelDefaults?
        var gpuLayers: Int?
    }

    private enum Source {
        case remote(any ChatModel)
        case local(LocalSource)
    }

    /// Where the model `setup` names comes from: a server, a remote registry entry, or a file (a
    /// preset's: the model it starts from, with its defaults over that model's).
    private func source(for setup: ModelSetup) throws -> Source {
        if let server = setup.server {
            var model = RemoteModel(server: server, name: setup.model, contextSize: setup.contextSize, timeout: setup.remoteTimeout)
            model.replicas = setup.replicas
            return .remote(model)
        }
        var base = setup.model
        var defaults: ModelDefaults?
        if ModelRegistry.entry(named: base) == nil, !ModelStore.isPath(base) {
            let user = try userModels()
            if let outermost = try user.presets(from: base).last {
                base = outermost.from
                defaults = try user.defaults(for: setup.model)
            }
            if let entry = user.remote(named: base) {
                return .remote(RemoteModel(entry: entry, setup: setup, defaults: defaults))
            }
        }
        try ModelRequantizer.makeIfMissing(base, in: store)
        let resolved = try store.resolve(base)
        return .local(LocalSource(resolved: resolved, defaults: defaults,
                                  gpuLayers: setup.gpuLayers ?? defaults?.gpuLayers ?? resolved.entry?.defaults.gpuLayers))
    }
}

/// A model that turns texts into vectors (it names a pooling, as embedding models do), asked to chat.
public struct NotAChatModel: Error, Sendable, Hashable, CustomStringConvertible {
    /// The model as it was named.
    public var name: String
    /// The pooling its file names (`mean`, `cls`, …).
    public var pooling: String

    public var description: String {
        "\(name) is an embedding model (it pools its states into one vector, by \(pooling)): it turns texts into vectors "
            + "(tide embed) and cannot chat; choose a chat model (tide models list)"
    }
}
