import Synchronization
import TideCore
import TideLlama

/// Scripts replayed side by side: the scripts on one model share a ``LlamaBatchEngine`` and
/// decode as parallel sequences of one batch.
public final class BatchedBackends: BackendProvider {
    private let models: ModelCache
    private let sequences: Int
    private let contextSize: Int?
    private let load: @Sendable (ModelSetup, ModelCache) throws -> LoadedModel
    private let engines = Mutex<[String: LlamaBatchEngine]>([:])

    /// Engines of `sequences` sequences of `contextSize` tokens each (default: min(4096, the
    /// model's)), on models from `models`.
    public init(models: ModelCache, sequences: Int, contextSize: Int? = nil,
                load: @escaping @Sendable (ModelSetup, ModelCache) throws -> LoadedModel = { try $1.load($0) })
    {
        self.models = models
        self.sequences = sequences
        self.contextSize = contextSize
        self.load = load
    }

    deinit {
        for engine in engines.withLock({ Array($0.values) }) { engine.shutdown() }
    }

    public func backend(for setup: ModelSetup) async throws -> (backend: any ChatBackend, model: LoadedModel) {
        let model = try load(setup, models)
        // A server batches its own clients: a remote script gets a backend of its own.
        guard case .local(let weights, let entry) = model else { return (try model.makeBackend(setup), model) }
        // A script asking for more than the model allows fails alone, not the scripts sharing the engine.
        _ = try setup.contextOptions.checkedContextSize(for: weights)
        let engine = try engines.withLock { engines throws -> LlamaBatchEngine in
            if let engine = engines[weights.path] { return engine }
            var options = setup.contextOptions
            let trained = weights.facts.trainedContextLength
            options.contextSize = (contextSize ?? setup.contextSize).map { trained > 0 ? min($0, trained) : $0 }
            let engine = try LlamaBatchEngine(model: weights, sequences: sequences, options: options)
            engines[weights.path] = engine
            return engine
        }
        let backend = try engine.makeBackend(template: model.template(for: setup),
                                             endOfGenerationStrings: entry?.endOfGenerationStrings ?? [],
                                             contextSize: setup.contextSize)
        return (backend, model)
    }

    /// The engine's thread: every script's work runs there between decoding steps, so steps
    /// gather every reply in progress and no thread competes with llama.cpp's for the cores.
    public func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)? { backend.taskExecutor }
}
