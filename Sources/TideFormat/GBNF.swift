/// Writing GBNF text: literals and character classes with everything that needs it escaped.
enum GBNF {
    /// A string literal matching exactly `text`'s code points.
    static func literal(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { escaped($0.value, inClass: false) }.joined() + "\""
    }

    /// A character class of `ranges` (inclusive code point pairs), or of everything else when `negated`.
    static func characterClass(_ ranges: [(lower: UInt32, upper: UInt32)], negated: Bool = false) -> String {
        let body = ranges.map { range in
            range.lower == range.upper
                ? escaped(range.lower, inClass: true)
                : escaped(range.lower, inClass: true) + "-" + escaped(range.upper, inClass: true)
        }
        return "[" + (negated ? "^" : "") + body.joined() + "]"
    }

    /// One code point as GBNF writes it: letters, digits and plain punctuation as themselves,
    /// everything else as a hexadecimal escape.
    private static func escaped(_ codePoint: UInt32, inClass: Bool) -> String {
        let special = inClass ? "\"\\[]-^" : "\"\\"
        if let scalar = Unicode.Scalar(codePoint), scalar.value >= 0x20, scalar.value < 0x7F, !special.unicodeScalars.contains(scalar) {
            return String(scalar)
        }
        let hex = String(codePoint, radix: 16, uppercase: true)
        switch codePoint {
        case ..<0x100: return "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
        case ..<0x10000: return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: return "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
        }
    }
}
