import Foundation
import TideLlama
import TideModels
import TideProvider

/// Models from a ``ModelCache``, with a progress bar named after the file while one loads; local
/// models run on the machine `TIDE_MACHINE` names (``SimulatedMachine/current``).
struct ProgressBarModels: ModelProvider {
    let cache: ModelCache

    init(cache: ModelCache = ModelCache(machine: .current)) {
        self.cache = cache
    }

    func model(for setup: ModelSetup, progress: @escaping @Sendable (Double) -> Void) throws -> any ChatModel {
        guard setup.server == nil, let path = try? ModelStore.standard.resolve(setup.model).path else {
            return try cache.model(for: setup, progress: progress)
        }
        let bar = ProgressBar(label: "loading \(URL(fileURLWithPath: path).lastPathComponent)")
        let model = try cache.model(for: setup) { fraction in
            bar.update(fraction)
            progress(fraction)
        }
        bar.finish()
        // Layers fitted to the GPU's memory, or a --gpu-layers a CPU build cannot honour.
        if let note = (model as? LocalModel)?.weights.placement.note {
            Terminal.warn("note: " + note)
        }
        return model
    }
}
