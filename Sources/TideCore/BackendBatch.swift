/// Backends that decode side by side, as the sequences of one batch: each conversation gets a
/// backend of its own, and the steps of every reply in progress run as one decode.
///
/// The llama.cpp batch engine provides one (TideProvider's `ChatModel.makeBatch`); `tide serve`
/// lends its backends to requests, and `tide run --parallel` gives one to each script.
public protocol BackendBatch: AnyObject, Sendable {
    /// How many backends the batch can give at once.
    var sequenceCapacity: Int { get }
    /// The most tokens one backend's conversation may hold.
    var contextSizePerSequence: Int { get }
    /// Whether a step of several sequences gives each the very scores a decode of its token alone
    /// gives, so that a reply is the same decoded in the batch or on its own; where not, replies
    /// may differ at near-ties, and recorded ones are checked within the tolerance (``Tolerance``).
    var scoresExactly: Bool { get }
    /// How many sequences no backend holds now. A backend gives its sequence back when it ends,
    /// which may come a moment after its last reply did.
    var freeSequenceCount: Int { get }
    /// A backend on a free sequence; `contextSize`, when given, limits its conversations further.
    /// Throws when every sequence is in use.
    func makeBackend(contextSize: Int?) throws -> any ChatBackend
    /// Lets the batch stop once the work queued has run. Call when no backend needs it any more.
    func shutdown()
    /// Its model's tokenizer and template, as its backends render prompts; `nil` for a batch
    /// that has none to show.
    var tokenizer: (any ModelTokenizer)? { get }
}

extension BackendBatch {
    public var tokenizer: (any ModelTokenizer)? { nil }
}
