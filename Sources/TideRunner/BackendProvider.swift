import TideCore
import TideProvider

/// Gives each script a backend for its model setup.
public protocol BackendProvider: Sendable {
    /// A backend on the model `setup` names, and the model (for its default system prompt).
    func backend(for setup: ModelSetup) async throws -> (backend: any ChatBackend, model: any ChatModel)
    /// Where a script's replay runs (the consumer of its replies, its checks), or `nil` for the
    /// default.
    func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)?
}

/// A backend of its own per script, on models loaded once: scripts replayed one after another.
public struct SequentialBackends: BackendProvider {
    let models: any ModelProvider

    /// Backends on models from `models`.
    public init(models: any ModelProvider) {
        self.models = models
    }

    public func backend(for setup: ModelSetup) async throws -> (backend: any ChatBackend, model: any ChatModel) {
        let model = try models.model(for: setup)
        return (try model.makeBackend(setup), model)
    }

    /// The default executor: a replay consuming a reply on the decode thread would see the
    /// reply's text only at its end, since decoding holds that thread.
    public func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)? { nil }
}
