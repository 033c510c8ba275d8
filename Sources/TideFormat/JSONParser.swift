/// A strict RFC 8259 parser over Unicode scalars, behind ``JSONValue/init(parsing:)``.
struct JSONParser {
    /// The deepest nesting of arrays and objects accepted: 256.
    static let maximumDepth = 256

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var depth = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// The one value of the text, with only white space around it.
    mutating func parseDocument() throws(SyntaxError) -> JSONValue {
        skipSpace()
        let value = try parseValue()
        skipSpace()
        if position < scalars.count {
            throw error("unexpected text after the JSON value; a document holds exactly one value")
        }
        return value
    }

    private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func error(_ message: String, at offset: Int? = nil) -> SyntaxError {
        SyntaxError(message, at: SourceLocation(offset: offset ?? position, in: scalars))
    }

    private mutating func skipSpace() {
        while let scalar = peek, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
            position += 1
        }
    }

    private mutating func parseValue() throws(SyntaxError) -> JSONValue {
        guard let scalar = peek else { throw error("unexpected end of text; expected a JSON value") }
        switch scalar {
        case "{": return try parseObject()
        case "[": return try parseArray()
        case "\"": return .string(try parseString())
        case "-", "0"..."9": return .number(try parseNumber())
        case "t": try expectWord("true"); return .bool(true)
        case "f": try expectWord("false"); return .bool(false)
        case "n": try expectWord("null"); return .null
        default:
            throw error("unexpected '\(scalar.escaped(asASCII: false))'; expected a JSON value (object, array, string, number, "
                        + "true, false or null)")
        }
    }

    private mutating func expectWord(_ word: String) throws(SyntaxError) {
        let start = position
        for expected in word.unicodeScalars {
            guard peek == expected else { throw error("invalid literal; expected '\(word)'", at: start) }
            position += 1
        }
    }

    private mutating func enterContainer() throws(SyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("arrays and objects nest deeper than the limit of \(Self.maximumDepth)")
        }
        position += 1
        skipSpace()
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        if peek == "]" {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipSpace()
            switch peek {
            case ",": position += 1; skipSpace()
            case "]": position += 1; depth -= 1; return .array(elements)
            default: throw error("expected ',' or ']' after an array element")
            }
        }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONValue {
        try enterContainer()
        var members: [JSONObject.Member] = []
        if peek == "}" {
            position += 1
            depth -= 1
            return .object(JSONObject(members))
        }
        while true {
            guard peek == "\"" else { throw error("expected '\"' to begin an object key") }
            let key = try parseString()
            skipSpace()
            guard peek == ":" else { throw error("expected ':' after an object key") }
            position += 1
            skipSpace()
            members.append(JSONObject.Member(key: key, value: try parseValue()))
            skipSpace()
            switch peek {
            case ",": position += 1; skipSpace()
            case "}": position += 1; depth -= 1; return .object(JSONObject(members))
            default: throw error("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        position += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek else { throw error("unexpected end of text inside a string; expected '\"'") }
            switch scalar {
            case "\"":
                position += 1
                return String(result)
            case "\\":
                result.append(try parseEscape())
            case _ where scalar.value < 0x20:
                throw error("control character U+\(hex(scalar.value)) must be escaped inside a string (e.g. \\n, \\t, \\u0001)")
            default:
                result.append(scalar)
                position += 1
            }
        }
    }

    private mutating func parseEscape() throws(SyntaxError) -> Unicode.Scalar {
        let start = position
        position += 1
        guard let letter = peek else { throw error("unexpected end of text inside a string escape") }
        position += 1
        switch letter {
        case "\"": return "\""
        case "\\": return "\\"
        case "/": return "/"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "u":
            let unit = try parseHex4()
            if (0xDC00...0xDFFF).contains(unit) {
                throw error("lone low surrogate \\u\(hex(unit)); a low surrogate must follow a high one", at: start)
            }
            guard (0xD800...0xDBFF).contains(unit) else { return Unicode.Scalar(unit)! }
            guard peek == "\\", position + 1 < scalars.count, scalars[position + 1] == "u" else {
                throw error("high surrogate \\u\(hex(unit)) must be followed by a low surrogate escape \\uDC00–\\uDFFF", at: start)
            }
            position += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error("high surrogate \\u\(hex(unit)) must be followed by a low surrogate escape \\uDC00–\\uDFFF", at: start)
            }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        default:
            throw error("unknown escape '\\\(letter.escaped(asASCII: false))'; JSON allows \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t "
                        + "and \\uXXXX", at: start)
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = peek, scalar.isASCII, let digit = UInt32(String(scalar), radix: 16) else {
                throw error("expected 4 hexadecimal digits after \\u")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    private mutating func parseNumber() throws(SyntaxError) -> Double {
        let start = position
        if peek == "-" { position += 1 }
        guard let first = peek, ("0"..."9").contains(first) else { throw error("expected a digit in the number") }
        position += 1
        if first == "0", let next = peek, ("0"..."9").contains(next) {
            throw error("a number may not have a leading zero")
        }
        skipDigits()
        if peek == "." {
            position += 1
            guard requireDigits() else { throw error("expected a digit after the decimal point") }
        }
        if peek == "e" || peek == "E" {
            position += 1
            if peek == "+" || peek == "-" { position += 1 }
            guard requireDigits() else { throw error("expected a digit in the exponent") }
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[start..<position])
        guard let value = Double(String(text)), value.isFinite else {
            throw error("the number is too large to represent", at: start)
        }
        return value
    }

    private mutating func skipDigits() {
        while let scalar = peek, ("0"..."9").contains(scalar) { position += 1 }
    }

    private mutating func requireDigits() -> Bool {
        let start = position
        skipDigits()
        return position > start
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
