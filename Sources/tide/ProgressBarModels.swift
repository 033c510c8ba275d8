import Foundation
import TideModels
import TideProvider

/// Models from a ``ModelCache``, with a progress bar named after the file while one loads.
struct ProgressBarModels: ModelProvider {
    let cache: ModelCache

    init(cache: ModelCache = ModelCache()) {
        self.cache = cache
    }

    func model(for setup: ModelSetup, progress: @escaping @Sendable (Double) -> Void) throws -> any ChatModel {
        guard setup.server == nil, let path = try? ModelStore.standard.resolve(setup.model).path else {
            return try cache.model(for: setup, progress: progress)
        }
        let bar = ProgressBar(label: "loading \(URL(fileURLWithPath: path).lastPathComponent)")
        defer { bar.finish() }
        return try cache.model(for: setup) { fraction in
            bar.update(fraction)
            progress(fraction)
        }
    }
}
