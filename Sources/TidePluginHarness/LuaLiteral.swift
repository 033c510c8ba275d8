import TideLua

/// A Lua value written as Lua source, which the harness's side of a test file reads back with
/// `load` (in an empty environment: only constructors, strings, numbers and booleans).
enum LuaLiteral {
    /// `value` as an expression: `{text = "Hi", tokens = 2, rewinds = {}}`.
    static func of(_ value: LuaValue) -> String {
        switch value {
        case .nil, .opaque, .uncopied: "nil"
        case .boolean(let flag): flag ? "true" : "false"
        case .integer(let number): number == .min ? "(-9223372036854775807 - 1)" : String(number)
        case .number(let number):
            if number.isNaN { "(0/0)" } else if number.isInfinite { number > 0 ? "1e999" : "-1e999" } else { "\(number)" }
        case .string(let text): quoted(text)
        case .table(let array, let fields):
            "{" + (array.map(of) + fields.sorted { $0.key < $1.key }.map { "[\(quoted($0.key))] = \(of($0.value))" })
                .joined(separator: ", ") + "}"
        }
    }

    /// `text` as a Lua string literal: every byte outside printable ASCII as a decimal escape.
    static func quoted(_ text: String) -> String {
        var literal = "\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): literal += "\\\""
            case UInt8(ascii: "\\"): literal += "\\\\"
            case 0x20..<0x7F: literal.unicodeScalars.append(Unicode.Scalar(byte))
            default: literal += String(format: "\\%03d", byte)
            }
        }
        return literal + "\""
    }
}
