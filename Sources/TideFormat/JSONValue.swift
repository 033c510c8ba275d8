/// A JSON value, as RFC 8259 defines it. Numbers are `Double`s, so integers beyond 2^53 lose
/// precision; object members keep their source order (see ``JSONObject``).
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in source order.
    case object(JSONObject)
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259, strictly): white space may surround the value but
    /// nothing else may follow it. Arrays and objects may nest at most
    /// ``JSONParser/maximumDepth`` (256) deep; a lone UTF-16 surrogate in a `\u` escape and a
    /// number too large for a `Double` are refused.
    public init(parsing text: String) throws(SyntaxError) {
        var parser = JSONParser(text)
        self = try parser.parseDocument()
    }

    /// The compact serialization: no white space, object keys in source order, strings escaped
    /// as RFC 8259 requires (`"`, `\`, control characters), integral numbers below 2^63 in
    /// magnitude printed without a fraction (`3`, not `3.0`). A non-finite number, which JSON
    /// cannot express, prints as `null`.
    public var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value): output += Self.numberText(value)
        case .string(let value): output += Self.quoted(value)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { output += "," }
                output += Self.quoted(member.key)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    /// A number as JSON text: integral values below 2^63 in magnitude without a fraction.
    static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value && abs(value) < 9.223372036854775807e18 {
            return String(Int64(value))
        }
        return "\(value)"
    }

    /// `string` as a JSON string literal, with the quotes.
    static func quoted(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
