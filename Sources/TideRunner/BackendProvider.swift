import TideCore
import TideProvider

/// Gives each script a backend for its model setup.
public protocol BackendProvider: Sendable {
    /// The model `setup` names, loaded (once: later calls give the same).
    func model(for setup: ModelSetup) async throws -> any ChatModel
    /// A backend on `model`, the one `setup` names (``model(for:)``).
    func backend(on model: any ChatModel, setup: ModelSetup) async throws -> any ChatBackend
    /// Where a script's replay runs (the consumer of its replies, its checks), or `nil` for the
    /// default.
    func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)?
}

extension BackendProvider {
    /// A backend on the model `setup` names, and the model (for its default system prompt).
    public func backend(for setup: ModelSetup) async throws -> (backend: any ChatBackend, model: any ChatModel) {
        let model = try await model(for: setup)
        return (try await backend(on: model, setup: setup), model)
    }
}

/// A backend of its own per script, on models loaded once: scripts replayed one after another.
public struct SequentialBackends: BackendProvider {
    let models: any ModelProvider

    /// Backends on models from `models`.
    public init(models: any ModelProvider) {
        self.models = models
    }

    public func model(for setup: ModelSetup) async throws -> any ChatModel {
        try models.model(for: setup)
    }

    public func backend(on model: any ChatModel, setup: ModelSetup) async throws -> any ChatBackend {
        try model.makeBackend(setup)
    }

    /// The default executor: a replay consuming a reply on the decode thread would see the
    /// reply's text only at its end, since decoding holds that thread.
    public func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)? { nil }
}
