/// A provider of one model already at hand, whatever the setup names: for benchmarks that load
/// their model once, and tests that run on a scripted model.
public struct FixedModelProvider: ModelProvider {
    /// The model every setup gets.
    public let model: any ChatModel

    /// A provider giving `model`.
    public init(_ model: any ChatModel) {
        self.model = model
    }

    public func model(for setup: ModelSetup, progress: @escaping @Sendable (Double) -> Void) throws -> any ChatModel { model }
}
