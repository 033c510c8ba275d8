import TideCore
import TideLlama

/// Gives each script a backend for its model setup.
public protocol BackendProvider: Sendable {
    /// A backend on the model `setup` names, and the loaded model (for its default system prompt).
    func backend(for setup: ModelSetup) async throws -> (backend: any ChatBackend, model: LoadedModel)
    /// Where a script's replay runs (the consumer of its replies, its checks), or `nil` for the
    /// default.
    func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)?
}

/// One llama.cpp context per script, on models loaded once: scripts replayed one after another.
public struct SequentialBackends: BackendProvider {
    let models: ModelCache
    let load: @Sendable (ModelSetup, ModelCache) throws -> LoadedModel

    /// Backends on models from `models`; `load` loads one (with a progress bar, say).
    public init(models: ModelCache,
                load: @escaping @Sendable (ModelSetup, ModelCache) throws -> LoadedModel = { try $1.load($0) })
    {
        self.models = models
        self.load = load
    }

    public func backend(for setup: ModelSetup) async throws -> (backend: any ChatBackend, model: LoadedModel) {
        let model = try load(setup, models)
        return (try model.makeBackend(setup), model)
    }

    /// The default executor: a replay consuming a reply on the decode thread would see the
    /// reply's text only at its end, since decoding holds that thread.
    public func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)? { nil }
}
