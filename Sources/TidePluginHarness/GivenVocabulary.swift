import Synchronization
import TideCore

/// The tokenizer a plugin test gives its plugin: the token texts the test names (a reply's
/// pieces, each its own token, numbered from 1; the ids and texts of a step's scores). `tokens(of:)`
/// spells a text with the longest known token at each place, and a character no named token
/// starts with as a token of its own, added to the vocabulary.
final class GivenVocabulary: Vocabulary, Sendable {
    private let texts = Mutex<[Int32: String]>([:])

    /// Adds (or renames) tokens.
    func give(_ tokens: [Int32: String]) {
        texts.withLock { $0.merge(tokens) { $1 } }
    }

    var vocabularySize: Int { Int(texts.withLock { $0.keys.max() ?? 0 }) + 1 }

    func tokens(of text: String) -> [Int32] {
        texts.withLock { texts in
            let known = texts.filter { !$0.value.isEmpty }.sorted { ($0.value.utf8.count, $1.key) > ($1.value.utf8.count, $0.key) }
            var rest = Substring(text)
            var ids: [Int32] = []
            while let first = rest.first {
                if let (id, piece) = known.first(where: { rest.hasPrefix($0.value) }) {
                    ids.append(id)
                    rest = rest.dropFirst(piece.count)
                    continue
                }
                // A character no named token starts with: a token of its own from now on.
                let id = texts.first { $0.value == String(first) }?.key ?? Int32((texts.keys.max() ?? 0) + 1)
                texts[id] = String(first)
                ids.append(id)
                rest = rest.dropFirst()
            }
            return ids
        }
    }

    func text(of tokens: [Int32]) -> String {
        let texts = texts.withLock { $0 }
        return tokens.map { texts[$0] ?? "" }.joined()
    }

    func tokenText(_ token: Int32) -> String {
        texts.withLock { $0[token] ?? "" }
    }
}
