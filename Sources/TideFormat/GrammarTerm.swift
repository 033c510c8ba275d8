/// One item of a grammar rule's alternative, as ``GrammarParser`` reads it from GBNF. Repetitions
/// and groups are kept as written rather than expanded into helper rules as llama.cpp does; the
/// language is the same.
indirect enum GrammarTerm: Sendable, Hashable {
    /// A non-empty string literal: these code points in order.
    case literal([UInt32])
    /// One code point from a character class (`[a-z]`, `[^"\\]`).
    case characters(CharacterRanges)
    /// `.`: any one code point.
    case any
    /// A model token: `<[123]>`, `<|end|>`, or its negation `!<…>`; it matches no text.
    case token(GrammarToken)
    /// A reference to the rule with this symbol number (see ``ParsedGrammar/names``).
    case rule(Int)
    /// `( a | b )`: alternatives, each a sequence of terms.
    case group([[GrammarTerm]])
    /// A repeated term: `*` is `0, nil`, `+` is `1, nil`, `?` is `0, 1`, `{m,n}` is `m, n`.
    case repeated(GrammarTerm, min: Int, max: Int?)
}

/// The code points of a character class: `ranges` (a single character has both ends equal;
/// a range written backwards, such as `[z-a]`, holds nothing, as in llama.cpp), or all others
/// when `negated`.
struct CharacterRanges: Sendable, Hashable {
    /// One inclusive range of code points.
    struct Range: Sendable, Hashable {
        /// The lowest code point.
        var lower: UInt32
        /// The highest code point.
        var upper: UInt32
    }

    /// `[^…]`.
    var negated: Bool
    /// The listed ranges.
    var ranges: [Range]

    /// Whether the class holds no code point at all (such as `[^\x00-\U0010FFFF]` or `[z-a]`).
    var isEmpty: Bool {
        negated ? ranges.contains { $0.lower == 0 && $0.upper >= 0x10FFFF } : ranges.allSatisfy { $0.lower > $0.upper }
    }

    /// Whether `codePoint` is in the class.
    func contains(_ codePoint: UInt32) -> Bool {
        ranges.contains { $0.lower <= codePoint && codePoint <= $0.upper } != negated
    }
}

/// A token reference in a grammar: by id (`<[42]>`) or by its text (`<think>`, which llama.cpp
/// looks up in the model's vocabulary when the grammar is loaded).
struct GrammarToken: Sendable, Hashable {
    /// The token id, for `<[id]>`.
    var id: UInt32?
    /// The token text with its angle brackets, for `<text>`.
    var text: String?
    /// `!<…>`: any token but this one.
    var negated: Bool
}
