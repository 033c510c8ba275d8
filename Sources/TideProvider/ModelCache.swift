import Synchronization
import TideLlama
import TideModels

/// The standard ``ModelProvider``: models from the registry, `.gguf` paths, servers and the
/// user's remote entries, with each model file loaded once however many scripts or
/// conversations name it.
public final class ModelCache: ModelProvider {
    private let loaded = Mutex<[String: LocalModel]>([:])
    private let store: ModelStore
    private let userModels: @Sendable () throws -> UserModels

    /// A cache over `store`, with remote models from `userModels` (read when a name is neither
    /// a path nor a built-in model's).
    public init(store: ModelStore = .standard, userModels: @escaping @Sendable () throws -> UserModels = { try UserModels() }) {
        self.store = store
        self.userModels = userModels
    }

    /// The model `setup` names: on its server, a remote registry entry, or a file loaded on
    /// first use. Scripts replayed side by side ask at the same time; the lock is held while a
    /// model loads, so each file is read once.
    public func model(for setup: ModelSetup, progress: @escaping @Sendable (Double) -> Void) throws -> any ChatModel {
        if let server = setup.server {
            return RemoteModel(server: server, name: setup.model, contextSize: setup.contextSize, timeout: setup.remoteTimeout)
        }
        if ModelRegistry.entry(named: setup.model) == nil, !ModelStore.isPath(setup.model),
           let entry = try userModels().entry(named: setup.model)
        {
            return RemoteModel(entry: entry, setup: setup)
        }
        let resolved = try store.resolve(setup.model)
        return try loaded.withLock { loaded throws -> LocalModel in
            if let model = loaded[resolved.path] { return model }
            let model = LocalModel(weights: try LlamaModel.load(path: resolved.path, gpuLayers: setup.gpuLayers, progress: progress),
                                   entry: resolved.entry)
            loaded[resolved.path] = model
            return model
        }
    }
}
