/// A parsed pattern: its tree and its capturing groups.
public struct ParsedPattern: Sendable, Hashable {
    /// The tree, with the inline flags applied.
    public var root: RegexNode
    /// The capturing groups, in the order of their opening parentheses.
    public var captures: [Capture]
}

/// Parses the pattern syntax that ``Pattern`` accepts (the constructs are listed in
/// docs/conversations.md) into a ``RegexNode`` tree.
///
/// Constructs that need backtracking (backreferences, lookaround, atomic groups, possessive
/// quantifiers, conditionals, recursion) are refused with a ``PatternError`` of kind
/// ``PatternError/Kind/unsupported``, so every accepted pattern matches in linear time.
public struct RegexParser {
    /// The inline flags in effect.
    private struct Flags {
        var ignoringCase = false
        var dotMatchesNewline = false
        var multiline = false
        var extended = false
    }

    /// The deepest nesting of groups: 250, PCRE2's default (`PARENS_NEST_LIMIT`). The parser and
    /// every walk of the tree recurse once per level, so the depth must be bounded.
    public static let maximumNesting = 250

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var nesting = 0
    private var flags = Flags()
    private var captures: [Capture] = []
    /// The names of the named captures so far, to find a second use without a scan.
    private var captureNames = Set<String>()
    /// The offset of the counted repetition with the largest program, to say where a pattern too
    /// large overall grows most.
    private var largestRepetition: (offset: Int, size: Int)?

    /// Parses `source`.
    public static func parse(_ source: String) throws(PatternError) -> ParsedPattern {
        var parser = RegexParser(scalars: Array(source.unicodeScalars))
        let root = try parser.alternation()
        if parser.position < parser.scalars.count {
            throw PatternError(.syntax, "unmatched closing parenthesis", at: parser.position)
        }
        let size = RegexCompiler.instructionCount(of: root)
        if size > RegexCompiler.maximumInstructions {
            throw PatternError(.tooLarge, "the pattern is too large: it needs \(size) instructions, more than the limit of "
                               + "\(RegexCompiler.maximumInstructions)", at: parser.largestRepetition?.offset ?? 0)
        }
        return ParsedPattern(root: root, captures: parser.captures)
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    // MARK: Reading

    private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func peek(at distance: Int) -> Unicode.Scalar? {
        position + distance < scalars.count ? scalars[position + distance] : nil
    }

    private mutating func take() -> Unicode.Scalar? {
        guard let scalar = peek else { return nil }
        position += 1
        return scalar
    }

    private mutating func take(_ expected: Unicode.Scalar) -> Bool {
        guard peek == expected else { return false }
        position += 1
        return true
    }

    /// In `(?x)` mode, skips white space and `#` comments.
    private mutating func skipExtendedSpace() {
        guard flags.extended else { return }
        while let scalar = peek {
            if scalar.properties.isWhitespace {
                position += 1
            } else if scalar == "#" {
                while let skipped = take(), skipped != "\n" {}
            } else {
                return
            }
        }
    }

    // MARK: Structure

    private mutating func alternation() throws(PatternError) -> RegexNode {
        var branches = [try concatenation()]
        while take("|") { branches.append(try concatenation()) }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(PatternError) -> RegexNode {
        var items: [RegexNode] = []
        while true {
            skipExtendedSpace()
            guard let scalar = peek, scalar != "|", scalar != ")" else { break }
            let start = position
            position += 1
            guard let atom = try atom(scalar, at: start) else { continue }
            items.append(try quantified(atom, at: start))
        }
        return items.isEmpty ? .empty : items.count == 1 ? items[0] : .concatenation(items)
    }

    /// The quantifiers after an atom, if any.
    private mutating func quantified(_ atom: RegexNode, at start: Int) throws(PatternError) -> RegexNode {
        skipExtendedSpace()
        let quantifierStart = position
        guard let (min, max) = try quantifier() else { return atom }
        let greedy = !take("?")
        if peek == "+" {
            throw unsupported("possessive quantifiers", text(from: quantifierStart, to: position + 1), at: quantifierStart)
        }
        let repetition = RegexNode.repetition(Repetition(atom, min: min, max: max, greedy: greedy))
        let size = RegexCompiler.instructionCount(of: repetition)
        let written = text(from: quantifierStart, to: position)
        if size > RegexCompiler.maximumInstructions {
            throw PatternError(.tooLarge, "\(written) repeats of \(text(from: start, to: quantifierStart)) make the pattern too large: "
                               + "\(size) instructions, more than the limit of \(RegexCompiler.maximumInstructions)",
                               at: quantifierStart)
        }
        if size > largestRepetition?.size ?? 0 { largestRepetition = (quantifierStart, size) }
        skipExtendedSpace()
        if let next = peek, "*+?".unicodeScalars.contains(next) || (next == "{" && isCountedQuantifier(at: position)) {
            throw PatternError(.syntax, "a quantifier cannot follow another quantifier; put the first in a group (?: … )",
                               at: position)
        }
        return repetition
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{,m}` or `{n,m}`, as bounds.
    private mutating func quantifier() throws(PatternError) -> (Int, Int?)? {
        switch peek {
        case "*": position += 1; return (0, nil)
        case "+": position += 1; return (1, nil)
        case "?": position += 1; return (0, 1)
        case "{" where isCountedQuantifier(at: position):
            let start = position
            position += 1
            let min = number() ?? 0
            var max: Int? = min
            if take(",") { max = number() }
            _ = take("}")
            if let max, max < min {
                throw PatternError(.syntax, "the quantifier \(text(from: start, to: position)) has its maximum below its minimum",
                                   at: start)
            }
            return (min, max)
        default: return nil
        }
    }

    /// Whether a `{` at `offset` opens a counted quantifier rather than standing for itself.
    private func isCountedQuantifier(at offset: Int) -> Bool {
        var index = offset + 1
        var digits = 0
        var comma = false
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "}" { return digits > 0 }
            if scalar == "," && !comma {
                comma = true
            } else if ("0"..."9").contains(scalar) {
                digits += 1
            } else {
                return false
            }
            index += 1
        }
        return false
    }

    /// A decimal number, capped so that huge counts are refused as too large rather than overflowing.
    private mutating func number() -> Int? {
        var value: Int?
        while let scalar = peek, ("0"..."9").contains(scalar) {
            value = Swift.min((value ?? 0) * 10 + Int(scalar.value - 48), 1_000_000)
            position += 1
        }
        return value
    }

    private func text(from start: Int, to end: Int) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[start..<Swift.min(end, scalars.count)])
        return String(result)
    }

    // MARK: Atoms

    /// The atom starting with `scalar` (already consumed) at `start`, or `nil` for an inline flag
    /// setting such as `(?i)` or a comment, which match nothing.
    private mutating func atom(_ scalar: Unicode.Scalar, at start: Int) throws(PatternError) -> RegexNode? {
        switch scalar {
        case "(": return try group(at: start)
        case "[": return .characterClass(try bracketedClass(at: start))
        case ".": return .dot(matchesNewline: flags.dotMatchesNewline)
        case "^": return .assertion(flags.multiline ? .startOfLine : .startOfText)
        case "$": return .assertion(flags.multiline ? .endOfLine : .endOfText)
        case "\\": return try escape(at: start)
        case "*", "+", "?":
            throw PatternError(.syntax, "the quantifier \(scalar) has nothing to repeat; write \\\(scalar) for the character",
                               at: start)
        case "{" where isCountedQuantifier(at: start):
            throw PatternError(.syntax, "the quantifier { has nothing to repeat; write \\{ for the character", at: start)
        default: return literal(scalar)
        }
    }

    private func literal(_ scalar: Unicode.Scalar) -> RegexNode {
        .literal(scalar, ignoringCase: flags.ignoringCase)
    }

    private mutating func group(at start: Int) throws(PatternError) -> RegexNode? {
        guard nesting < Self.maximumNesting else {
            throw PatternError(.tooLarge, "groups nest deeper than the limit of \(Self.maximumNesting)", at: start)
        }
        nesting += 1
        defer { nesting -= 1 }
        var capture: Capture?
        let saved = flags
        if take("?") {
            switch peek {
            case ":": position += 1
            case "<" where peek(at: 1) == "=" || peek(at: 1) == "!":
                let construct = peek(at: 1) == "=" ? "(?<=" : "(?<!"
                throw unsupported("lookbehinds", construct, at: start)
            case "<": position += 1; capture = try namedCapture(closing: ">", at: start)
            case "P" where peek(at: 1) == "<": position += 2; capture = try namedCapture(closing: ">", at: start)
            case "'": position += 1; capture = try namedCapture(closing: "'", at: start)
            case "=": throw unsupported("lookaheads", "(?=", at: start)
            case "!": throw unsupported("negative lookaheads", "(?!", at: start)
            case ">": throw unsupported("atomic groups", "(?>", at: start)
            case "(": throw unsupported("conditionals", "(?(", at: start)
            case "P" where peek(at: 1) == "=": throw unsupported("backreferences", "(?P=", at: start)
            case "P" where peek(at: 1) == ">": throw unsupported("recursive patterns", "(?P>", at: start)
            case "#":
                while let skipped = take(), skipped != ")" {}
                if scalars[position - 1] != ")" {
                    throw PatternError(.syntax, "this comment (?# is never closed", at: start)
                }
                return nil
            case let next? where next == "R" || ("0"..."9").contains(next) || next == "&" || next == "+":
                throw unsupported("recursive patterns", text(from: start, to: position + 1), at: start)
            default:
                if try inlineFlags(at: start) { return nil }
            }
        } else if peek == "*" {
            throw unsupported("backtracking control verbs", "(*", at: start)
        } else {
            capture = Capture(index: captures.count + 1)
        }
        if let capture { captures.append(capture) }
        let body = try alternation()
        guard take(")") else { throw PatternError(.syntax, "this group is never closed: add )", at: start) }
        flags = saved
        return .group(body, capture: capture)
    }

    /// `(?<name>`: the name up to `closing`, as a new capture.
    private mutating func namedCapture(closing: Unicode.Scalar, at start: Int) throws(PatternError) -> Capture {
        let nameStart = position
        while let scalar = peek, scalar.isASCII && ScalarKind.isWord(scalar) { position += 1 }
        let name = text(from: nameStart, to: position)
        guard take(closing), !name.isEmpty, !("0"..."9").contains(name.unicodeScalars.first!) else {
            throw PatternError(.syntax, "a group name is letters, digits and _, not starting with a digit, "
                               + "closed by \(closing)", at: start)
        }
        guard captureNames.insert(name).inserted else {
            throw PatternError(.syntax, "two groups are named '\(name)'", at: start)
        }
        return Capture(index: captures.count + 1, name: name)
    }

    /// `(?ims-x)` (returns true: the flags hold to the end of the enclosing group) or `(?i: `
    /// (returns false: the group's body follows, and the flags hold inside it).
    private mutating func inlineFlags(at start: Int) throws(PatternError) -> Bool {
        var on = true
        while let scalar = take() {
            switch scalar {
            case "i": flags.ignoringCase = on
            case "s": flags.dotMatchesNewline = on
            case "m": flags.multiline = on
            case "x": flags.extended = on
            case "-" where on: on = false
            case ")": return true
            case ":": return false
            default:
                throw PatternError(.syntax, "unknown group or flag \(text(from: start, to: position)); flags are i, s, m "
                                   + "and x, as in (?i) or (?i: … )", at: position - 1)
            }
        }
        throw PatternError(.syntax, "this group is never closed: add )", at: start)
    }

    private func unsupported(_ what: String, _ written: String, at offset: Int) -> PatternError {
        PatternError(.unsupported, "\(what) (\(written)) are not supported: the pattern must match in linear time", at: offset)
    }
}

// MARK: Escapes and classes

extension RegexParser {
    /// What an escape stands for.
    private enum Escaped {
        case scalar(Unicode.Scalar)
        case item(CharacterClass.Item)
        case assertion(Assertion)
    }

    /// An escape outside brackets; `start` is the offset of the backslash.
    private mutating func escape(at start: Int) throws(PatternError) -> RegexNode {
        switch try escaped(at: start, inClass: false) {
        case .scalar(let scalar): return literal(scalar)
        case .item(let item): return .characterClass(CharacterClass([item], ignoringCase: flags.ignoringCase))
        case .assertion(let assertion): return .assertion(assertion)
        }
    }

    /// The escape after a backslash at `start` (already consumed).
    private mutating func escaped(at start: Int, inClass: Bool) throws(PatternError) -> Escaped {
        guard let scalar = take() else { throw PatternError(.syntax, "the pattern ends with a lone backslash", at: start) }
        switch scalar {
        case "d", "D": return .item(.digit(negated: scalar == "D"))
        case "w", "W": return .item(.word(negated: scalar == "W"))
        case "s", "S": return .item(.space(negated: scalar == "S"))
        case "v": return .item(.range("\n", "\r"))
        case "n": return .scalar("\n")
        case "t": return .scalar("\t")
        case "r": return .scalar("\r")
        case "f": return .scalar("\u{0C}")
        case "a": return .scalar("\u{07}")
        case "e": return .scalar("\u{1B}")
        case "0":
            if let next = peek, ("0"..."7").contains(next) {
                throw PatternError(.syntax, "octal escapes (\\0\(next)) are not supported; write \\x{…}", at: start)
            }
            return .scalar("\0")
        case "x": return .scalar(try hexadecimal(at: start, digits: 2))
        case "u": return .scalar(try hexadecimal(at: start, digits: 4))
        case "b" where inClass: return .scalar("\u{08}")
        case "b": return .assertion(.wordBoundary)
        case "B" where !inClass: return .assertion(.notWordBoundary)
        case "A" where !inClass: return .assertion(.startOfText)
        case "z" where !inClass: return .assertion(.endOfText)
        case "Z" where !inClass: return .assertion(.endOfTextOrBeforeFinalNewline)
        case "1"..."9":
            while let next = peek, ("0"..."9").contains(next) { position += 1 }
            throw unsupported("backreferences", text(from: start, to: position), at: start)
        case "k", "g": throw unsupported("backreferences", "\\\(scalar)", at: start)
        case "p", "P":
            throw PatternError(.unsupported, "Unicode property classes (\\\(scalar){…}) are not supported; list the "
                               + "characters in brackets", at: start)
        case "K", "G":
            throw PatternError(.unsupported, "\\\(scalar) is not supported", at: start)
        default:
            if scalar.isASCII && !ScalarKind.isWord(scalar) || !scalar.isASCII { return .scalar(scalar) }
            throw PatternError(.syntax, "unknown escape \\\(scalar)\(inClass ? " in a class" : ""); write \\\\ for a "
                               + "backslash", at: start)
        }
    }

    /// `\xHH`, `\uHHHH` (`digits` hexadecimal digits) or `\x{H…}`, `\u{H…}`.
    private mutating func hexadecimal(at start: Int, digits: Int) throws(PatternError) -> Unicode.Scalar {
        let braced = take("{")
        var value: UInt32 = 0
        var count = 0
        while let scalar = peek, let digit = scalar.properties.isASCIIHexDigit ? UInt32(String(scalar), radix: 16) : nil,
              braced || count < digits {
            value = Swift.min(value &* 16 &+ digit, 0x11_0000)
            count += 1
            position += 1
        }
        let closed = !braced || take("}")
        guard closed, count > 0, braced || count == digits, let scalar = Unicode.Scalar(value) else {
            throw PatternError(.syntax, "\(text(from: start, to: start + 2)) needs \(digits) hexadecimal digits or a code in "
                               + "braces, like \\u{1F30A}, naming a Unicode scalar", at: start)
        }
        return scalar
    }

    /// A bracketed class; `start` is the offset of `[` (already consumed).
    private mutating func bracketedClass(at start: Int) throws(PatternError) -> CharacterClass {
        let negated = take("^")
        var items: [CharacterClass.Item] = []
        var first = true
        while true {
            let itemStart = position
            guard let scalar = take() else {
                throw PatternError(.syntax, "this class is never closed: add ]", at: start)
            }
            if scalar == "]" && !first { break }
            first = false
            if scalar == "[" {
                let what = peek == ":" ? "POSIX classes ([:name:])" : "nested classes and set operations"
                throw PatternError(.unsupported, "\(what) are not supported; write \\[ for the character", at: itemStart)
            }
            let lower: Unicode.Scalar
            if scalar == "\\" {
                switch try escaped(at: itemStart, inClass: true) {
                case .scalar(let escaped): lower = escaped
                case .item(let item): items.append(item); continue
                case .assertion: preconditionFailure("no assertion escapes are read in a class")
                }
            } else {
                lower = scalar
            }
            guard peek == "-", let next = peek(at: 1), next != "]" else {
                items.append(.range(lower, lower))
                continue
            }
            position += 1
            let upperStart = position
            var upper = take()!
            if upper == "\\" {
                guard case .scalar(let escaped) = try escaped(at: upperStart, inClass: true) else {
                    throw PatternError(.syntax, "a range cannot end with a class such as \\d; write \\- for a hyphen",
                                       at: upperStart)
                }
                upper = escaped
            } else if upper == "[" {
                throw PatternError(.unsupported, "nested classes and set operations are not supported; write \\[ for the "
                                   + "character", at: upperStart)
            }
            guard lower <= upper else {
                throw PatternError(.syntax, "the range \(text(from: itemStart, to: position)) is out of order", at: itemStart)
            }
            items.append(.range(lower, upper))
        }
        return CharacterClass(items, negated: negated, ignoringCase: flags.ignoringCase)
    }
}
