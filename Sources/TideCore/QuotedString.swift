/// The quoted strings of scripts: `"…"` with the escapes `\"`, `\\`, `\n`, `\t`, `\r` and
/// `\u{1F30A}`.
public enum QuotedString {
    /// `text` in quotes, escaped so that a script reads it back as it was.
    public static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// Reads a quoted string at the start of `text` (which begins with `"`); returns its value
    /// and the rest of the text after the closing quote, or a message and the offset (in
    /// characters) where the string goes wrong.
    public static func read(_ text: Substring) -> Result<(value: String, rest: Substring), Failure> {
        var value = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" { return .success((value, text[text.index(after: index)...])) }
            if character != "\\" {
                value.append(character)
                index = text.index(after: index)
                continue
            }
            let escape = text.index(after: index)
            guard escape < text.endIndex else { break }
            switch text[escape] {
            case "\"": value += "\""
            case "\\": value += "\\"
            case "n": value += "\n"
            case "t": value += "\t"
            case "r": value += "\r"
            case "u":
                let rest = text[text.index(after: escape)...]
                guard rest.hasPrefix("{"), let close = rest.firstIndex(of: "}"),
                      let code = UInt32(rest[rest.index(after: rest.startIndex)..<close], radix: 16),
                      let scalar = Unicode.Scalar(code)
                else {
                    return .failure(Failure(offset: text.distance(from: text.startIndex, to: index),
                                            message: "\\u must be followed by a hexadecimal code in braces, like \\u{1F30A}"))
                }
                value.unicodeScalars.append(scalar)
                index = text.index(after: close)
                continue
            default:
                return .failure(Failure(offset: text.distance(from: text.startIndex, to: index),
                                        message: "unknown escape \\\(text[escape]) (use \\\", \\\\, \\n, \\t, \\r or \\u{…})"))
            }
            index = text.index(after: escape)
        }
        return .failure(Failure(offset: 0, message: "this string has no closing quote"))
    }

    /// Where and why a quoted string could not be read.
    public struct Failure: Error {
        public var offset: Int
        public var message: String
    }
}
