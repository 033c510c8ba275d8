/// The text form of parameter values, as directives and `/set` write them: words separated by
/// blanks, where a word may hold quoted strings (``QuotedString``) with blanks inside.
public enum ParameterText {
    /// The words of `text`, each as written (quotes kept); `nil` when a quote is not closed.
    public static func words(in text: some StringProtocol) -> [String]? {
        var words: [String] = []
        var word = ""
        var rest = Substring(text)
        while let character = rest.first {
            if character == "\"" {
                guard case .success(let (_, after)) = QuotedString.read(rest) else { return nil }
                word += rest[..<after.startIndex]
                rest = after
            } else if character == " " || character == "\t" {
                if !word.isEmpty { words.append(word) }
                word = ""
                rest = rest.dropFirst()
            } else {
                word.append(character)
                rest = rest.dropFirst()
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// A word's text: a quoted string's value, or a bare word as it is; `nil` for a word that
    /// holds more than one quoted string, or a quote and more.
    static func unquoted(_ word: String) -> String? {
        guard word.hasPrefix("\"") else { return word.contains("\"") ? nil : word }
        guard case .success(let (value, rest)) = QuotedString.read(Substring(word)), rest.isEmpty else { return nil }
        return value
    }

    /// `0` rather than `0.0`; otherwise Swift's shortest exact spelling.
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
