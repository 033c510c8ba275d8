/// A model's tokenizer, for hooks that think in tokens (Lua's `tide.tokenize` and friends).
public protocol Vocabulary: Sendable {
    /// How many tokens there are.
    var vocabularySize: Int { get }
    /// The tokens of `text` (no special tokens added).
    func tokens(of text: String) -> [Int32]
    /// The text of a token sequence.
    func text(of tokens: [Int32]) -> String
    /// One token's text.
    func tokenText(_ token: Int32) -> String
}
