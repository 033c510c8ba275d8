import CLlama
import Foundation

/// Cuts a rendered prompt into pieces that llama.cpp tokenizes one after another to the same
/// tokens as the whole: each cut falls just before the text of a special token (`<|im_start|>`),
/// where the tokenizer splits the text anyway.
///
/// llama.cpp splits a text at its special tokens in time quadratic in how many it holds (it walks
/// its list of fragments from the start at each one): a conversation of 20,000 short messages
/// took 15 s to tokenize, 40,000 took 54 s. In pieces of a bounded number of special tokens, the
/// time is linear in the prompt's length.
struct SpecialTokenSplitter: Sendable {
    private struct Special: Sendable {
        var text: [UInt8]
        /// Whether a cut may fall before it: not for a token that strips the spaces before it,
        /// which in the whole text would be stripped from the piece before the cut.
        var cuttable: Bool
        /// Whether llama.cpp reads it only when asked to parse special tokens (a control or
        /// unknown token); user-defined tokens are read as such in any text.
        var control: Bool
    }

    /// The texts of the tokens llama.cpp parses as special, by their first byte, longest first.
    private let byFirstByte: [[Special]]
    /// Special tokens in one piece, at most.
    static let tokensPerPiece = 64

    /// The special tokens of `vocab`: those llama.cpp looks for in a text when asked to parse them.
    init(vocab: OpaquePointer) {
        var table = [[Special]](repeating: [], count: 256)
        let special = LLAMA_TOKEN_ATTR_CONTROL.rawValue | LLAMA_TOKEN_ATTR_USER_DEFINED.rawValue | LLAMA_TOKEN_ATTR_UNKNOWN.rawValue
        for token in 0..<llama_vocab_n_tokens(vocab) {
            let attributes = llama_vocab_get_attr(vocab, token).rawValue
            guard attributes & special != 0, let text = llama_vocab_get_text(vocab, token) else { continue }
            let bytes = Array(String(cString: text).utf8)
            guard let first = bytes.first else { continue }
            let control = attributes & (LLAMA_TOKEN_ATTR_CONTROL.rawValue | LLAMA_TOKEN_ATTR_UNKNOWN.rawValue) != 0
            table[Int(first)].append(Special(text: bytes, cuttable: attributes & LLAMA_TOKEN_ATTR_LSTRIP.rawValue == 0,
                                             control: control))
        }
        byFirstByte = table.map { $0.sorted { $0.text.count > $1.text.count } }
    }

    /// The pieces of `text`, as ranges of its bytes, in order and covering it.
    func pieces(of text: ArraySlice<UInt8>) -> [Range<Int>] {
        var cuts = [text.startIndex]
        var inPiece = 0
        forEachSpecial(in: text) { index, special in
            if inPiece == Self.tokensPerPiece, special.cuttable {
                cuts.append(index)
                inPiece = 0
            }
            inPiece = min(inPiece + 1, Self.tokensPerPiece)
            return true
        }
        cuts.append(text.endIndex)
        return zip(cuts, cuts.dropFirst()).map { $0..<$1 }
    }

    /// Whether `text` holds the text of a control token, which it would forge if it were
    /// tokenized with special tokens parsed.
    func containsControlText(_ text: [UInt8]) -> Bool {
        var found = false
        forEachSpecial(in: text[...]) { _, special in
            found = special.control
            return !found
        }
        return found
    }

    /// Calls `body` with the offset and the token of each special token's text in `text`, left to
    /// right, longest first where several start at one place, until it returns false.
    private func forEachSpecial(in text: ArraySlice<UInt8>, _ body: (Int, Special) -> Bool) {
        text.withUnsafeBufferPointer { bytes in
            var offset = 0
            while offset < bytes.count {
                let candidates = byFirstByte[Int(bytes[offset])]
                guard !candidates.isEmpty, let match = candidates.first(where: { special in
                    special.text.count <= bytes.count - offset
                        && special.text.withUnsafeBufferPointer { memcmp(bytes.baseAddress! + offset, $0.baseAddress!, $0.count) == 0 }
                }) else {
                    offset += 1
                    continue
                }
                guard body(text.startIndex + offset, match) else { return }
                offset += match.text.count
            }
        }
    }
}
