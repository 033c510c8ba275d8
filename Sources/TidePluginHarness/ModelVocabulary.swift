import Synchronization
import TideCore

/// A real model's tokenizer, for plugin tests that give a reply as token ids or as text the
/// model splits (`p:reply{ids = …}`, `p:reply{text = …}`): the bundled model's, read from its
/// file without its weights.
public struct ModelVocabulary: Sendable {
    /// Its tokens, as the plugin's `tide.tokenize` sees them.
    public var vocabulary: any Vocabulary
    /// One token's bytes (part of a UTF-8 character, for some).
    public var bytes: @Sendable (Int32) -> [UInt8]

    /// The tokenizer `vocabulary`, whose tokens' bytes are `bytes`.
    public init(vocabulary: any Vocabulary, bytes: @escaping @Sendable (Int32) -> [UInt8]) {
        self.vocabulary = vocabulary
        self.bytes = bytes
    }
}

/// The tokenizer a harness plugin sees: the test's given vocabulary, or a real model's once a
/// reply is given in its tokens.
final class SwitchedVocabulary: Vocabulary, Sendable {
    private let current: Mutex<any Vocabulary>

    init(_ vocabulary: any Vocabulary) { current = Mutex(vocabulary) }

    /// Sees `vocabulary` from now on.
    func use(_ vocabulary: any Vocabulary) { current.withLock { $0 = vocabulary } }

    private var vocabulary: any Vocabulary { current.withLock { $0 } }
    var vocabularySize: Int { vocabulary.vocabularySize }
    func tokens(of text: String) -> [Int32] { vocabulary.tokens(of: text) }
    func text(of tokens: [Int32]) -> String { vocabulary.text(of: tokens) }
    func tokenText(_ token: Int32) -> String { vocabulary.tokenText(token) }
}
