/// A command line written as one string split into its words as a POSIX shell splits them,
/// without expanding anything: blanks separate words, `'…'` quotes literally, `"…"` quotes
/// with `\"`, `\\`, `\$` and `` \` `` as escapes, and a backslash outside quotes keeps the
/// character after it. `--target 'plain: --plugin "ban-phrases phrases=a,b"'` is read this way.
public enum ShellWords {
    /// The words of `text`; an unclosed quote, or a backslash at the end, is an error that says so.
    public static func split(_ text: String) throws(ShellWordsError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = text.makeIterator()
        while let character = characters.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                var closed = false
                while let next = characters.next() {
                    if next == "'" { closed = true; break }
                    word.append(next)
                }
                guard closed else { throw ShellWordsError(message: "a single quote (') is never closed") }
            case "\"":
                inWord = true
                var closed = false
                while let next = characters.next() {
                    if next == "\"" { closed = true; break }
                    if next == "\\" {
                        guard let escaped = characters.next() else { break }
                        if !"\"\\$`".contains(escaped) { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
                guard closed else { throw ShellWordsError(message: "a double quote (\") is never closed") }
            case "\\":
                guard let escaped = characters.next() else { throw ShellWordsError(message: "a backslash ends the text: it escapes nothing") }
                inWord = true
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}

/// Text that cannot be split into words.
public struct ShellWordsError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
