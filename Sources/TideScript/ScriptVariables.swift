import Foundation
import TideFormat

/// The values a script's `{{name}}` references take: the command line's (`--var name=value`),
/// which the script's own `@var` lines override, and a data row's, which override both.
///
/// A reference is `{{name}}` (spaces inside the braces allowed), the name made of letters,
/// digits and `_`, not starting with a digit; `{{"text"}}` stands for the text itself, so
/// `{{"{{"}}` writes two braces. Any other `{{` is text.
public struct ScriptVariables: Sendable, Hashable {
    /// `--var name=value`: defaults the script's `@var` lines override.
    public var commandLine: [String: String]
    /// The row of a run fed by data, whose values win.
    public var row: DataRow?

    /// Values from the command line and a row.
    public init(commandLine: [String: String] = [:], row: DataRow? = nil) {
        self.commandLine = commandLine
        self.row = row
    }

    /// Whether `name` can name a variable.
    public static func isName(_ name: some StringProtocol) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    /// `text` with each reference replaced by `value(name)`; a name `value` does not know is an
    /// error at its offset (in characters) in `text`.
    static func expand(_ text: String, value: (String) throws(ExpansionFailure) -> String) throws(ExpansionFailure) -> String {
        guard text.contains("{{") else { return text }
        var result = ""
        var rest = Substring(text)
        var offset = 0
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            offset += rest.distance(from: rest.startIndex, to: open.lowerBound)
            let inside = rest[open.upperBound...]
            if let (replacement, length) = try reference(in: inside, value: value, offset: offset) {
                result += replacement
                rest = inside.dropFirst(length)
                offset += 2 + length
            } else {
                result += "{{"
                rest = inside
                offset += 2
            }
        }
        return result + rest
    }

    /// The reference after `{{` in `text`, and how many characters it takes (its `}}`
    /// included); `nil` when it is not one.
    private static func reference(in text: Substring, value: (String) throws(ExpansionFailure) -> String,
                                  offset: Int) throws(ExpansionFailure) -> (String, Int)?
    {
        guard let close = text.range(of: "}}") else { return nil }
        let body = text[..<close.lowerBound]
        let length = text.distance(from: text.startIndex, to: close.upperBound)
        let trimmed = body.trimmingBlanks()
        if trimmed.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\""), !trimmed.dropFirst().dropLast().contains("\"") {
            return (String(trimmed.dropFirst().dropLast()), length)
        }
        guard isName(trimmed) else { return nil }
        do {
            return (try value(trimmed), length)
        } catch {
            var located = error
            located.offset = offset
            throw located
        }
    }
}

extension ScriptVariables {
    /// Where a reference stands, which decides how its value is written there: as text, or as
    /// what the surrounding syntax needs so that a value cannot change what the line says.
    enum Context {
        /// A turn, a check's text or bound, a directive's value: the value as it is (these are
        /// read before values are put in, so a value's quotes and line breaks are text).
        case text
        /// `expect-lua:` code: a Lua string literal, quotes included.
        case lua
        /// A `tool-call:` turn's JSON: the content of a JSON string, without its quotes.
        case jsonString
        /// A `@plugin` line, whose words are split at blanks: one word, without blanks or quotes.
        case pluginWord

        /// Quotes, which a `@plugin` value may not hold (nor blanks): they would quote its words.
        private static let quotes: Set<Character> = ["\"", "'"]

        /// `value`, the value of `name`, written for this context.
        func written(_ value: String, name: String) throws(ExpansionFailure) -> String {
            switch self {
            case .text: return value
            case .lua: return Self.luaLiteral(value)
            case .jsonString: return Self.jsonContent(value)
            case .pluginWord:
                guard !value.isEmpty, !value.contains(where: { $0.isWhitespace || Self.quotes.contains($0) }) else {
                    throw ExpansionFailure(name: name, message: "{{\(name)}} in a @plugin line must be one word, without blanks or quotes; "
                                           + "its value is \(value.debugDescription)")
                }
                return value
            }
        }

        /// `value` as a Lua string literal: printable ASCII as it is, other bytes below 128 and
        /// `"` and `\` as three-digit decimal escapes, UTF-8 bytes as they are.
        private static func luaLiteral(_ value: String) -> String {
            var bytes: [UInt8] = [UInt8(ascii: "\"")]
            for byte in value.utf8 {
                let plain: Bool = byte >= 0x80 || (byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C)
                if plain {
                    bytes.append(byte)
                } else {
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(contentsOf: String(format: "%03d", Int(byte)).utf8)
                }
            }
            bytes.append(UInt8(ascii: "\""))
            return String(decoding: bytes, as: UTF8.self)
        }

        /// `value` as the content of a JSON string: the JSON literal without its quotes.
        private static func jsonContent(_ value: String) -> String {
            String(JSONValue.string(value).text.dropFirst().dropLast())
        }
    }
}

/// A reference to a variable with no value, and where it is.
struct ExpansionFailure: Error {
    var name: String
    var message: String
    /// Where `{{` is, in characters from the start of the text expanded.
    var offset = 0
}

extension ConversationScript {
    /// This script with the values its variables took written in, so that it replays alone and
    /// the same: `@data` gives way to a `@var` line for each column of its row, each `@var` line
    /// holds the value it took, and a variable the command line gave gets a `@var` line too.
    /// The added lines come first, after the comments that open the script, so that every line
    /// below may refer to them. Lines written with references keep them (``ScriptEntry/written``).
    public func recordingVariables() -> ConversationScript {
        guard !variables.isEmpty else { return self }
        var result = self
        var defined: Set<String> = []
        result.entries = []
        for entry in entries {
            switch entry.item {
            case .directive(.data):
                continue
            case .directive(.variable(let name, _)):
                defined.insert(name)
                if let value = variables.first(where: { $0.name == name })?.value {
                    result.entries.append(ScriptEntry(.directive(.variable(name: name, value: value)), line: entry.line))
                    continue
                }
            default: break
            }
            result.entries.append(entry)
        }
        let added = variables.filter { !defined.contains($0.name) }.map { ScriptEntry(.directive(.variable(name: $0.name, value: $0.value))) }
        let place = result.entries.firstIndex {
            switch $0.item {
            case .blank, .comment: false
            default: true
            }
        }
        result.entries.insert(contentsOf: added, at: place ?? result.entries.count)
        return result
    }
}
