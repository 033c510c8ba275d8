/// The shorthand classes `\d`, `\w` and `\s`, by Unicode properties.
public enum ScalarKind {
    /// `\d`: a decimal digit (general category Nd), such as `0`–`9` or `٣`.
    public static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return ("0"..."9").contains(scalar) }
        return scalar.properties.generalCategory == .decimalNumber
    }

    /// `\w`: a letter (Alphabetic), a decimal digit, a combining mark or connector punctuation
    /// such as `_`.
    public static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_"
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .decimalNumber, .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation: return true
        default: return properties.isAlphabetic
        }
    }

    /// `\s`: white space (the Unicode White_Space property), such as space, tab, `\n` or U+00A0.
    public static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace
    }
}
