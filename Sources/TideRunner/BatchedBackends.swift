import Synchronization
import TideCore
import TideProvider

/// Scripts replayed side by side: the scripts on one model and setup share a ``BackendBatch``
/// and decode as parallel sequences of one batch.
public final class BatchedBackends: BackendProvider {
    private let models: any ModelProvider
    private let sequences: Int
    private let contextSize: Int?
    private let batches = Mutex<[BatchKey: any BackendBatch]>([:])
    private let notice: @Sendable (String) -> Void

    /// Batches of `sequences` sequences of `contextSize` tokens each (default: min(4096, the
    /// model's)), on models from `models`. A model whose batches llama.cpp does not score bit for
    /// bit as single tokens is named once, through `notice`, with what that means for the replay.
    public init(models: any ModelProvider, sequences: Int, contextSize: Int? = nil,
                notice: @escaping @Sendable (String) -> Void = { _ in }) {
        self.models = models
        self.sequences = sequences
        self.contextSize = contextSize
        self.notice = notice
    }

    deinit {
        for batch in batches.withLock({ Array($0.values) }) { batch.shutdown() }
    }

    /// What a batch is made for: the model, and the setup but its context size (each sequence
    /// sizes its own, within the batch's), since a batch keeps the template, tool format,
    /// threads and batch size of the setup it was made for.
    private struct BatchKey: Hashable {
        var model: String
        var setup: ModelSetup

        init(model: any ChatModel, setup: ModelSetup) {
            self.model = model.identifier
            self.setup = setup
            self.setup.contextSize = nil
        }
    }

    public func model(for setup: ModelSetup) async throws -> any ChatModel {
        try models.model(for: setup)
    }

    public func backend(on model: any ChatModel, setup: ModelSetup) async throws -> any ChatBackend {
        let key = BatchKey(model: model, setup: setup)
        let (batch, created) = try batches.withLock { batches throws -> ((any BackendBatch)?, Bool) in
            if let batch = batches[key] { return (batch, false) }
            let batch = try model.makeBatch(setup, sequences: sequences, contextSize: contextSize)
            batches[key] = batch
            return (batch, true)
        }
        if created, let batch, !batch.scoresExactly {
            notice("note: llama.cpp scores \(model.identifier)'s batches otherwise than single tokens on this machine: "
                   + "recorded replies are checked within the tolerance, as one after another, and a reply generated in the "
                   + "batch may differ from the sequential run's where the model's two likeliest words are that close")
        }
        // A model that cannot batch here (a server batches its own clients) gives each script a backend of its own.
        guard let batch else { return try model.makeBackend(setup) }
        // No more scripts run at once than there are sequences, but the one that just ended may
        // not have given its sequence back yet: wait for it, a while.
        let clock = ContinuousClock()
        let deadline = clock.now + Self.sequenceWait
        while batch.freeSequenceCount == 0, clock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        return try batch.makeBackend(contextSize: setup.contextSize)
    }

    /// How long a script waits for the sequence of the one before it to come back.
    static let sequenceWait = Duration.seconds(30)

    /// The batch's thread: every script's work runs there between decoding steps, so steps
    /// gather every reply in progress and no thread competes with llama.cpp's for the cores.
    public func replayExecutor(for backend: any ChatBackend) -> (any TaskExecutor)? { backend.taskExecutor }
}
