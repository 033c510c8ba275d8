import Foundation
import TideCore


/// One model a server serves: the configuration its requests run with (its name for clients,
/// its parameters, plugins, tools and system prompt — a preset's — beside the server's key and
/// limits), its sequences, and how it is estimated and loaded. ``ModelRoster`` loads it on its
/// first request and may unload it when it is idle.
public struct ServedModel: Sendable {
    /// What its requests run with; `modelName` is the name clients give.
    public var configuration: ServeConfiguration
    /// Sequences decoded at once (`--parallel`).
    public var sequences: Int
    /// The memory it will take loaded, estimated before loading (``TideCore/ModelFootprint``);
    /// `nil` when it cannot be told.
    public var footprint: @Sendable () throws -> ModelFootprint?
    /// Loads its weights and opens its batch of ``sequences`` sequences. Runs on a thread of its
    /// own, so that the server goes on answering meanwhile.
    public var load: @Sendable () throws -> ModelLoad

    /// The model's name for clients.
    public var name: String { configuration.modelName }

    /// A model served with `configuration`, loaded by `load`.
    public init(configuration: ServeConfiguration, sequences: Int, footprint: @escaping @Sendable () throws -> ModelFootprint? = { nil },
                load: @escaping @Sendable () throws -> ModelLoad) {
        self.configuration = configuration
        self.sequences = sequences
        self.footprint = footprint
        self.load = load
    }
}

/// A model loaded for serving: its batch, where it runs, and where its sequences keep their
/// states after long prompts.
public struct ModelLoad: Sendable {
    /// The batch its requests decode in.
    public var batch: any BackendBatch
    /// Where it runs (``ServeConfiguration/placement``); `nil` if unknown.
    public var placement: String?
    /// Where its sequences keep their states (`--prompt-cache`); `nil` for nowhere.
    public var promptStates: (any PromptStateStore)?

    /// A load of `batch`.
    public init(batch: any BackendBatch, placement: String? = nil, promptStates: (any PromptStateStore)? = nil) {
        self.batch = batch
        self.placement = placement
        self.promptStates = promptStates
    }
}

/// A served model in memory: its batch and the pool that lends its sequences.
final class LoadedModel: Sendable {
    let batch: any BackendBatch
    let pool: SequencePool
    /// Its configuration with where it runs and its prompt states filled in.
    let configuration: ServeConfiguration
    /// The model's tokenizer and template; `nil` for a batch without one.
    var tokenizer: (any ModelTokenizer)? { batch.tokenizer }
    /// The most tokens one request's conversation may hold.
    var contextSize: Int { batch.contextSizePerSequence }

    init(_ load: ModelLoad, configuration: ServeConfiguration) throws {
        batch = load.batch
        var configuration = configuration
        configuration.placement = load.placement ?? configuration.placement
        configuration.promptStates = load.promptStates ?? configuration.promptStates
        self.configuration = configuration
        pool = try SequencePool(batch: load.batch, promptStates: configuration.promptStates)
    }
}

/// One request's hold on a loaded model: while any lease of a model lives, the model is not
/// unloaded. It is given back when the last reference goes (the request's response written,
/// its replies' sequences returned).
final class ModelLease: Sendable {
    let model: LoadedModel
    private let giveBack: @Sendable () -> Void

    init(_ model: LoadedModel, giveBack: @escaping @Sendable () -> Void) {
        self.model = model
        self.giveBack = giveBack
    }

    /// The model's name for clients.
    var name: String { model.configuration.modelName }
    var configuration: ServeConfiguration { model.configuration }
    var pool: SequencePool { model.pool }

    deinit { giveBack() }
}
