import Synchronization
import TideCore
import TideModels
import TideProvider

/// A model that needs no file: each backend it makes is a ``ScriptedBackend`` replying as
/// `reply` says, so the runner, the chat controller and `tide serve` can be tested without a
/// model. Its batches give at most `sequences` backends, like a batch engine.
public struct ScriptedModel: ChatModel {
    public let name: String
    public var identifier: String { "scripted:\(name)" }
    public var defaults: ModelDefaults { ModelDefaults(systemPrompt: "You are a scripted assistant.") }
    /// The context of each backend, in characters (one token each).
    public let contextSize: Int
    /// Whether its backends run logits hooks and take back tokens (false: like a remote model).
    public let supportsLogits: Bool
    /// A pause before each token.
    public let tokenDelay: Duration
    private let reply: @Sendable ([ChatMessage]) -> [String]
    /// What every reply fails with when it starts, as a backend's own error would; `nil` for none.
    public var startFailure: String?
    /// Whether its batches say they score exactly as single sequences (false: as a GPU's may not).
    public var batchesScoreExactly = true
    /// The tags it reasons between, for a model that thinks.
    public var reasoningMarkers: ReasoningMarkers?

    /// A model replying to each prompt with the tokens `reply` gives for its messages.
    public init(name: String = "scripted", contextSize: Int = 4096, supportsLogits: Bool = true, tokenDelay: Duration = .zero,
                reply: @escaping @Sendable ([ChatMessage]) -> [String]) {
        self.name = name
        self.contextSize = contextSize
        self.supportsLogits = supportsLogits
        self.tokenDelay = tokenDelay
        self.reply = reply
    }

    /// A model echoing the last message, one word (with its leading space) a token:
    /// "You said: hello there".
    public static func echo(name: String = "scripted", contextSize: Int = 4096, tokenDelay: Duration = .zero) -> ScriptedModel {
        ScriptedModel(name: name, contextSize: contextSize, tokenDelay: tokenDelay) { messages in
            let words = ("You said: " + (messages.last?.content ?? "")).split(separator: " ", omittingEmptySubsequences: false)
            return words.enumerated().map { $0.offset == 0 ? String($0.element) : " " + $0.element }
        }
    }

    public func origin(in setup: ModelSetup) -> String { "\(setup.model) (scripted)" }

    public func templateName(for setup: ModelSetup) -> String? { setup.template ?? "scripted" }

    public func makeBackend(_ setup: ModelSetup) throws -> any ChatBackend {
        let backend = ScriptedBackend(contextSize: setup.contextSize ?? contextSize, modelName: name, reply: reply)
        backend.supportsLogits = supportsLogits
        backend.supportsRewind = supportsLogits
        backend.tokenDelay = tokenDelay
        backend.startFailure = startFailure
        backend.reasoningMarkers = reasoningMarkers
        return backend
    }

    public func makeBatch(_ setup: ModelSetup, sequences: Int, contextSize: Int?) throws -> (any BackendBatch)? {
        var setup = setup
        setup.contextSize = contextSize ?? setup.contextSize
        return ScriptedBatch(model: self, setup: setup, capacity: sequences)
    }
}

/// The batch of a ``ScriptedModel``: up to `capacity` backends, each on its own.
final class ScriptedBatch: BackendBatch {
    let model: ScriptedModel
    let setup: ModelSetup
    let sequenceCapacity: Int
    private let lent = Mutex(0)

    init(model: ScriptedModel, setup: ModelSetup, capacity: Int) {
        self.model = model
        self.setup = setup
        sequenceCapacity = capacity
    }

    var contextSizePerSequence: Int { setup.contextSize ?? model.contextSize }

    var scoresExactly: Bool { model.batchesScoreExactly }

    /// Backends are never given back: those not yet lent.
    var freeSequenceCount: Int { sequenceCapacity - lent.withLock { $0 } }

    func makeBackend(contextSize: Int?) throws -> any ChatBackend {
        try lent.withLock { lent in
            guard lent < sequenceCapacity else { throw ScriptedBatchFull(capacity: sequenceCapacity) }
            lent += 1
        }
        var setup = setup
        setup.contextSize = min(contextSize ?? contextSizePerSequence, contextSizePerSequence)
        return try model.makeBackend(setup)
    }

    func shutdown() {}
}

/// Every backend of a scripted batch is lent.
struct ScriptedBatchFull: Error, CustomStringConvertible {
    let capacity: Int
    var description: String { "all \(capacity) sequences of the scripted batch are in use" }
}
