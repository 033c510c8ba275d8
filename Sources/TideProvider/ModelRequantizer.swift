import Foundation
import TideLlama
import TideModels

/// Requantizes model files with llama.cpp, for ``ModelPuller``: how a
/// ``ModelSource/requantized(from:format:)`` model (the bundled default) is made from its base.
public enum ModelRequantizer {
    /// Writes the weights of `source` to `destination` in `format` (a ``WeightsFormat`` name),
    /// on every core.
    public static let requantize: @Sendable (URL, URL, String) throws -> Void = { source, destination, format in
        guard let weights = WeightsFormat(rawValue: format) else {
            throw LlamaError.loadFailed(path: source.path, detail: "no weights format \(format): Tide writes "
                + WeightsFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        try LlamaModel.requantize(source.path, to: destination.path, format: weights, threads: LlamaContextOptions.coreCount)
    }

    /// Makes the requantized registry model `name` from its installed base when it is missing,
    /// so that a model made on this machine needs no pull of its own; other names are left alone.
    public static func makeIfMissing(_ name: String, in store: ModelStore) throws {
        guard let entry = ModelRegistry.entry(named: name), case .requantized = entry.source, !store.isInstalled(entry) else { return }
        _ = try ModelPuller(store: store, requantize: requantize).derive(entry)
    }
}
