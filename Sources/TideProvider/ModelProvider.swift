/// Turns what a user names — a registry name, a `.gguf` path, a model on a server — into a
/// model ready to make backends. Every command takes its models from one: `tide generate`,
/// `tide chat` (and its `/model`), `tide run`, `tide serve` and `tide bench`.
///
/// ``ModelCache`` is the standard provider; the `tide` command wraps it to show a progress
/// bar, and tests provide scripted models that need no model file.
public protocol ModelProvider: Sendable {
    /// The model `setup` names. `progress` gets the fraction loaded, from 0 to 1, while a file
    /// is read (not at all for a model already loaded or on a server).
    func model(for setup: ModelSetup, progress: @escaping @Sendable (Double) -> Void) throws -> any ChatModel
}

extension ModelProvider {
    /// The model `setup` names, loaded without reporting progress.
    public func model(for setup: ModelSetup) throws -> any ChatModel {
        try model(for: setup, progress: { _ in })
    }
}
