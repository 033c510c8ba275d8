import TideRegex

/// Turns a `pattern` into GBNF for the inside of a JSON string, as a documented subset:
/// literals, classes (`[a-z]`, `[^,]`, `\d`, `\w`, `\s`), `.`, groups, alternation and
/// repetition, with `^` only at the very start and `$` only at the very end. A side without its
/// anchor may hold any other string characters (the pattern is a search). Characters are emitted
/// raw inside the JSON string, so the result stays sound: a class or `.` leaves out `"`, `\` and
/// control characters (which JSON would have to escape), and a literal that is one of them is
/// refused. Also refused: word boundaries, line anchors (`(?m)`), anchors elsewhere,
/// case-insensitive matching, and repetition counts above 2000.
struct PatternTranslator {
    private let pointer: String
    private let ruleName: String
    /// Helper rules for repeated groups, so every repetition applies to a single item.
    private(set) var helpers: [String] = []

    /// The string expression (with its quotes) for `pattern`, and the helper rules it needs,
    /// named after `ruleName`.
    static func translate(_ pattern: Pattern, ruleName: String, pointer: String) throws(SchemaError)
        -> (expression: String, helpers: [String]) {
        var translator = PatternTranslator(pointer: pointer, ruleName: ruleName)
        var parts: [RegexNode]
        if case .concatenation(let list) = pattern.parsed.root { parts = list } else { parts = [pattern.parsed.root] }
        let anchoredStart = parts.first == .assertion(.startOfText)
        if anchoredStart { parts.removeFirst() }
        let anchoredEnd = parts.last == .assertion(.endOfText)
        if anchoredEnd { parts.removeLast() }
        let body = try parts.map { node throws(SchemaError) in try translator.translate(node) }.filter { !$0.isEmpty }
        let pieces = [#""\"""#] + (anchoredStart ? [] : ["string-char*"]) + body + (anchoredEnd ? [] : ["string-char*"])
            + [#""\"""#]
        return (pieces.joined(separator: " "), translator.helpers)
    }

    private func fail(_ message: String) -> SchemaError {
        SchemaError(pointer, "pattern", "the pattern can't be turned into a grammar: \(message)")
    }

    private mutating func translate(_ node: RegexNode) throws(SchemaError) -> String {
        switch node {
        case .empty:
            return ""
        case .literal(let scalar, let ignoringCase):
            if ignoringCase && scalar.properties.changesWhenCaseMapped {
                throw fail("case-insensitive matching is not supported; list both cases, e.g. [aA]")
            }
            if Self.needsEscape(scalar.value) {
                throw fail("'\(scalar.escaped(asASCII: true))' would have to be escaped in JSON; leave it out of the pattern")
            }
            return GBNF.literal(String(scalar))
        case .dot:
            return GBNF.characterClass([(0x00, 0x1F), (0x22, 0x22), (0x5C, 0x5C)], negated: true)
        case .characterClass(let characterClass):
            return try translate(characterClass)
        case .assertion(let assertion):
            let what = switch assertion {
            case .wordBoundary, .notWordBoundary: "word boundaries (\\b, \\B) are not supported"
            case .startOfLine, .endOfLine: "line anchors ((?m)^ and $) are not supported"
            case .endOfTextOrBeforeFinalNewline: "\\Z is not supported; use $ at the end"
            case .startOfText, .endOfText: "'^' may only begin and '$' only end the whole pattern; for alternatives "
                + "write ^(a|b)$"
            }
            throw fail(what)
        case .group(let inner, _):
            let text = try translate(inner)
            return text.isEmpty ? "" : "(" + text + ")"
        case .concatenation(let parts):
            return try parts.map { node throws(SchemaError) in try translate(node) }.filter { !$0.isEmpty }
                .joined(separator: " ")
        case .alternation(let alternatives):
            return "(" + (try alternatives.map { node throws(SchemaError) in try translate(node) }.joined(separator: " | ")) + ")"
        case .repetition(let repetition):
            return try translate(repetition)
        }
    }

    private mutating func translate(_ repetition: Repetition) throws(SchemaError) -> String {
        let limit = GrammarParser.maximumRepetition
        if repetition.min > limit || (repetition.max ?? 0) > limit {
            throw fail("a repetition count is over the limit of \(limit)")
        }
        var item = try translate(repetition.node)
        if item.isEmpty || repetition.max == 0 { return "" }
        switch repetition.node {
        case .literal, .dot, .characterClass: break
        default:
            let name = "\(ruleName)-\(helpers.count + 1)"
            helpers.append("\(name) ::= \(item)")
            item = name
        }
        switch (repetition.min, repetition.max) {
        case (0, nil): return item + "*"
        case (1, nil): return item + "+"
        case (let min, nil): return item + "{\(min),}"
        case (0, 1): return item + "?"
        case (let min, let max?) where min == max: return item + "{\(min)}"
        case (let min, let max?): return item + "{\(min),\(max)}"
        }
    }

    private func translate(_ characterClass: CharacterClass) throws(SchemaError) -> String {
        if characterClass.ignoringCase {
            throw fail("case-insensitive matching is not supported; list both cases, e.g. [aA]")
        }
        // The class as runs of code points, worked out on ranges: listed ranges as they are, the
        // shorthands from runs found once per process, negation as the complement.
        var held: [ClosedRange<UInt32>] = []
        for item in characterClass.items {
            switch item {
            case .range(let lower, let upper) where lower <= upper: held.append(lower.value...upper.value)
            case .range: continue
            case .digit(let negated): held += negated ? Self.complement(Self.digitRuns) : Self.digitRuns
            case .word(let negated): held += negated ? Self.complement(Self.wordRuns) : Self.wordRuns
            case .space(let negated): held += negated ? Self.complement(Self.spaceRuns) : Self.spaceRuns
            }
        }
        held = Self.merged(held)
        if characterClass.negated { held = Self.complement(held) }
        // JSON escapes `"`, `\` and controls; a raw one must never be emitted.
        let ranges = Self.complement(Self.complement(held) + Self.escaped)
        guard !ranges.isEmpty else {
            throw fail("a character class holds only characters JSON would have to escape (\", \\, controls)")
        }
        return GBNF.characterClass(ranges.map { ($0.lowerBound, $0.upperBound) })
    }

    /// The code points JSON must escape in a string, and the surrogates, which are no scalars.
    private static let escaped: [ClosedRange<UInt32>] = [0...0x1F, 0x22...0x22, 0x5C...0x5C, 0xD800...0xDFFF]

    /// `\d`, `\w` and `\s` as runs of code points, found by one scan of Unicode each, when first used.
    private static let digitRuns = runs(where: ScalarKind.isDigit)
    private static let wordRuns = runs(where: ScalarKind.isWord)
    private static let spaceRuns = runs(where: ScalarKind.isSpace)

    private static func runs(where holds: (Unicode.Scalar) -> Bool) -> [ClosedRange<UInt32>] {
        var runs: [ClosedRange<UInt32>] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), holds(scalar) else { continue }
            if let last = runs.last, last.upperBound + 1 == value {
                runs[runs.count - 1] = last.lowerBound...value
            } else {
                runs.append(value...value)
            }
        }
        return runs
    }

    /// Sorted, with overlapping and adjacent runs joined.
    private static func merged(_ runs: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        for run in runs.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, run.lowerBound <= last.upperBound + 1 {
                result[result.count - 1] = last.lowerBound...Swift.max(last.upperBound, run.upperBound)
            } else {
                result.append(run)
            }
        }
        return result
    }

    /// The code points up to U+10FFFF that sorted, disjoint `runs` leave out.
    private static func complement(_ runs: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for run in merged(runs) {
            if run.lowerBound > next { result.append(next...(run.lowerBound - 1)) }
            next = run.upperBound + 1
        }
        if next <= 0x10FFFF { result.append(next...0x10FFFF) }
        return result
    }

    /// Whether JSON must escape `codePoint` inside a string.
    private static func needsEscape(_ codePoint: UInt32) -> Bool {
        codePoint < 0x20 || codePoint == 0x22 || codePoint == 0x5C
    }
}
