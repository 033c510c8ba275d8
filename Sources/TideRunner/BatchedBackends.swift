import Synchronization
import TideCore
import TideProvider

/// Scripts replayed side by side: the scripts on one model share a ``BackendBatch`` and decode
/// as parallel sequences of one batch.
public final class BatchedBackends: BackendProvider {
    private let models: any ModelProvider
    private let sequences: Int
    private let contextSize: Int?
    private let batches = Mutex<[String: any BackendBatch]>([:])

    /// Batches of `sequences` sequences of `contextSize` tokens each (default: min(4096, the
    /// model's)), on models from `models`.
    public init(models: any ModelProvider, sequences: Int, contextSize: Int? = nil) {
        self.models = models
        self.sequences = sequences
        self.contextSize = contextSize
    }

    deinit {
        for batch in batches.withLock({ Array($0.values) }) { batch.shutdown() }
    }

    public func backend(for setup: ModelSetup) async throws -> (backend: any ChatBackend, model: any ChatModel) {
        let model = try models.model(for: setup)
        let batch = try batches.withLock { batches throws -> (any BackendBatch)? in
            if let batch = batches[model.identifier] { return batch }
            let batch = try model.makeBatch(setup, sequences: sequences, contextSize: contextSize)
            batches[model.identifier] = batch
            return batch
        }
        // A model that cannot batch here (a server batches its own clients) gives each script a backend of its own.
        return (try batch?.makeBackend(contextSize: setup.contextSize) ?? model.makeBackend(setup), model)
    }

    /// The batch's thread: every script's work runs there between decoding steps, so steps
    /// gather every reply in progress and no thread competes with llama.cpp's for the cores.
    public func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)? { backend.taskExecutor }
}
