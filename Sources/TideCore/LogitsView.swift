/// A cheap view of the next-token scores, for logits hooks.
///
/// Nothing is copied up front: ``top(_:)`` selects candidates on demand, and ``bias(_:by:)`` and
/// ``ban(_:)`` change single scores in place before the sampler runs.
public protocol LogitsView: AnyObject {
    /// How many tokens the model knows.
    var vocabularySize: Int { get }
    /// The `k` highest-scoring tokens, best first.
    func top(_ k: Int) -> [TokenCandidate]
    /// Adds `delta` to a token's score.
    func bias(_ token: Int32, by delta: Float)
    /// Makes a token impossible to sample.
    func ban(_ token: Int32)
}

/// One candidate for the next token.
public struct TokenCandidate: Sendable, Hashable {
    /// The token's id in the model's vocabulary.
    public var id: Int32
    /// The token's text.
    public var text: String
    /// Its raw score, after earlier biases.
    public var logit: Float

    /// Creates a candidate.
    public init(id: Int32, text: String, logit: Float) {
        self.id = id
        self.text = text
        self.logit = logit
    }
}
