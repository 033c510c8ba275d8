/// Where a JSON object or array written inside a longer text ends: brackets, commas and tags
/// inside its strings are part of the strings, so a call whose argument holds `}` or
/// `</tool_call>` is read whole.
enum JSONSpan {
    /// The spaces JSON allows between values.
    static let spaces: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]

    /// The index just past the object or array that starts at `text`'s first byte; `nil` when
    /// `text` does not start with `{` or `[`, or ends before the value closes.
    static func end(ofValueAt text: Substring.UTF8View) -> Substring.UTF8View.Index? {
        guard let first = text.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        var depth = 0, inString = false, escaped = false
        for index in text.indices {
            let byte = text[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return text.index(after: index) }
            default: break
            }
        }
        return nil
    }

    /// `text` without the spaces it starts with.
    static func trimmingLeadingSpaces(_ text: Substring.UTF8View) -> Substring.UTF8View {
        text.drop { spaces.contains($0) }
    }
}
