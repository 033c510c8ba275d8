/// Reads GBNF as llama.cpp's `llama_grammar_parser::parse` does (src/llama-grammar.cpp), and then
/// makes the checks llama.cpp makes when it loads a grammar: every rule defined, a `root` rule,
/// no left recursion.
///
/// It refuses what llama.cpp refuses, with the place and what was expected, and a little more,
/// each to keep a bad grammar from hanging or exhausting the process:
/// - a repetition count above ``maximumRepetition`` (2000, llama.cpp's
///   `MAX_REPETITION_THRESHOLD`); llama.cpp refuses such a minimum but silently turns such a
///   maximum into "no limit", which changes the language, so both are refused here;
/// - `{m,n}` with `n < m` (llama.cpp would loop on it);
/// - groups, and repetitions of repetitions (`"a"??`), nested deeper than ``maximumNesting`` (256);
/// - a text longer than ``Grammar/maximumTextLength`` bytes, or one that llama.cpp would expand
///   into more than ``maximumExpandedSize`` elements;
/// - a NUL character (llama.cpp would silently stop reading there);
/// - an escape that is no character (a surrogate, or above U+10FFFF);
/// - a rule that makes llama.cpp follow more than ``maximumBranching`` alternatives at once, or
///   nest more than ``maximumEntryDepth`` rules deep before reading a character;
/// - left recursion that llama.cpp's check misses because it only counts an alternative
///   written empty as empty (`a ::= b a "x"` with `b ::= c`, `c ::= "y"?`), which would make it
///   loop when sampling.
struct GrammarParser {
    /// The largest repetition count, and the largest product of nested counts: 2000.
    static let maximumRepetition = 2000
    /// The deepest nesting of parenthesized groups: 256.
    static let maximumNesting = 256
    /// The most alternatives llama.cpp may have to follow at once on entering a rule: 4,096 (a
    /// schema of a thousand optional properties needs a thousand). llama.cpp checks each sampled
    /// token against every one, so a rule of 100,000 alternatives would take seconds per token
    /// (see ``GrammarGraph/expansion(cap:)``).
    static let maximumBranching = 4096
    /// The most rules and groups llama.cpp may enter, one inside the other, before reading the
    /// first character: 1,024, the depth ``GrammarCursor`` follows.
    static let maximumEntryDepth = 1024
    /// The most grammar elements the text may expand to inside llama.cpp: 2,000,000.
    static let maximumExpandedSize = 2_000_000

    private let scalars: [Unicode.Scalar]
    private var position = 0
    /// Symbol numbers by name, as llama.cpp assigns them (at first sight, definition or reference).
    private var symbols: [String: Int] = [:]
    private var names: [String] = []
    private var rules: [[[GrammarTerm]]?] = []
    private var definitionOffsets: [Int] = []
    private var firstReferences: [Int] = []
    /// llama.cpp's count of symbol ids: named rules plus one per group and per helper rule a
    /// repetition generates; it bounds nested repetition.
    private var symbolCount = 0
    private var expandedSize = 0
    private var nesting = 0
    /// How deep the deepest term read so far in the current group nests (a group or a repetition
    /// around a term is one level more): walks of the terms recurse once per level.
    private var deepestTerm = 0

    /// Parses and checks `text`; `branching` is the widest expansion allowed (a caller that words
    /// that refusal its own way passes `nil` and checks ``GrammarGraph/expansion(cap:)``).
    static func parse(_ text: String, branching: Int? = maximumBranching) throws(SyntaxError) -> ParsedGrammar {
        var parser = GrammarParser(scalars: Array(text.unicodeScalars))
        if text.utf8.count > Grammar.maximumTextLength {
            throw parser.error("the grammar is \(text.utf8.count) bytes, over the limit of \(Grammar.maximumTextLength)", at: 0)
        }
        if let nul = parser.scalars.firstIndex(of: "\0") {
            throw parser.error("the grammar contains a NUL character; llama.cpp would stop reading here", at: nul)
        }
        return try parser.parseGrammar(branching: branching)
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    // MARK: Reading

    private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func peek(at distance: Int) -> Unicode.Scalar? {
        position + distance < scalars.count ? scalars[position + distance] : nil
    }

    private func error(_ message: String, at offset: Int? = nil) -> SyntaxError {
        SyntaxError(message, at: SourceLocation(offset: offset ?? position, in: scalars))
    }

    private var found: String {
        guard let scalar = peek else { return "the end of the text" }
        return scalar.properties.generalCategory == .control ? "'\(scalar.escaped(asASCII: true))'" : "'\(scalar)'"
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }

    private static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        scalar.map { ("0"..."9").contains($0) } ?? false
    }

    /// Skips blanks and `#` comments, and line ends too when `newlines`.
    private mutating func skipSpace(newlines: Bool) {
        while let scalar = peek {
            if scalar == " " || scalar == "\t" || (newlines && (scalar == "\r" || scalar == "\n")) {
                position += 1
            } else if scalar == "#" {
                while let skipped = peek, skipped != "\r" && skipped != "\n" { position += 1 }
            } else {
                return
            }
        }
    }

    private mutating func parseName() throws(SyntaxError) -> String {
        let start = position
        while Self.isWordCharacter(peek) { position += 1 }
        guard position > start else {
            throw error("expected a rule name (letters, digits and '-'), found \(found)")
        }
        return String(String.UnicodeScalarView(scalars[start..<position]))
    }

    private mutating func symbol(_ name: String, referencedAt offset: Int?) -> Int {
        if let existing = symbols[name] { return existing }
        let id = names.count
        symbols[name] = id
        names.append(name)
        rules.append(nil)
        definitionOffsets.append(0)
        firstReferences.append(offset ?? Int.max)
        symbolCount += 1
        return id
    }

    // MARK: Rules

    private mutating func parseGrammar(branching: Int?) throws(SyntaxError) -> ParsedGrammar {
        skipSpace(newlines: true)
        while position < scalars.count {
            try parseRule()
        }
        if let missing = rules.indices.filter({ rules[$0] == nil }).min(by: { firstReferences[$0] < firstReferences[$1] }) {
            throw error("undefined rule '\(names[missing])'; define it with '\(names[missing]) ::= …'", at: firstReferences[missing])
        }
        let defined = rules.compactMap { $0 }
        let grammar = ParsedGrammar(names: names, rules: defined, definitionOffsets: definitionOffsets)
        guard grammar.symbol(named: Grammar.rootRule) != nil else {
            throw error("the grammar has no '\(Grammar.rootRule)' rule; llama.cpp starts from it, so define "
                        + "'\(Grammar.rootRule) ::= …'", at: 0)
        }
        if let cycle = GrammarGraph(grammar).leftRecursion() {
            let path = cycle.map { grammar.names[$0] }.joined(separator: " → ")
            throw error("left recursion: \(path) can reach itself without reading any text, which llama.cpp refuses; "
                        + "rewrite it with repetition, e.g. 'list ::= item (\",\" item)*' instead of "
                        + "'list ::= list \",\" item | item'", at: grammar.definitionOffsets[cycle[0]])
        }
        let expansion = GrammarGraph(grammar).expansion(cap: (branching ?? 0) + 1)
        if expansion.deepest.depth > Self.maximumEntryDepth {
            throw error("entering '\(grammar.names[expansion.deepest.rule])' nests \(expansion.deepest.depth) rules deep before "
                        + "the first character, over the limit of \(Self.maximumEntryDepth) (llama.cpp copies a stack that deep "
                        + "for every token it tries); make the chain shorter, or reference each rule last in its alternative",
                        at: grammar.definitionOffsets[expansion.deepest.rule])
        }
        guard let branching else { return grammar }
        let widest = expansion.widest
        if widest.width > branching {
            throw error("entering '\(grammar.names[widest.rule])' would make llama.cpp follow more than "
                        + "\(branching) alternatives at once, and check every token against each; share the "
                        + "common starts ('\"a\" (\"b\" | \"c\")' for '\"ab\" | \"ac\"') or use a character class",
                        at: grammar.definitionOffsets[widest.rule])
        }
        return grammar
    }

    private mutating func parseRule() throws(SyntaxError) {
        let start = position
        let name = try parseName()
        skipSpace(newlines: false)
        let id = symbol(name, referencedAt: nil)
        guard peek == ":", peek(at: 1) == ":", peek(at: 2) == "=" else {
            throw error("expected '::=' after the rule name '\(name)', found \(found)")
        }
        position += 3
        skipSpace(newlines: true)
        let alternatives = try parseAlternates(nested: false)
        rules[id] = alternatives
        definitionOffsets[id] = start
        expandedSize = Self.saturatingAdd(expandedSize, Self.expandedSize(ofAlternatives: alternatives))
        if expandedSize > Self.maximumExpandedSize {
            throw error("the grammar would expand to more than \(Self.maximumExpandedSize) elements inside llama.cpp "
                        + "(every repetition is copied out); reduce the repetition counts", at: start)
        }
        switch peek {
        case "\r":
            position += peek(at: 1) == "\n" ? 2 : 1
        case "\n":
            position += 1
        case nil:
            break
        case ")":
            throw error("unmatched ')'; expected a newline or the end of the text after the rule '\(name)'")
        default:
            throw error("unexpected \(found) in the rule '\(name)'; expected a string, a character class, a rule name, "
                        + "'(', '.', a repetition ('*', '+', '?', '{'), '|' or the end of the line")
        }
        skipSpace(newlines: true)
    }

    private mutating func parseAlternates(nested: Bool) throws(SyntaxError) -> [[GrammarTerm]] {
        var alternatives = [try parseSequence(nested: nested)]
        while peek == "|" {
            position += 1
            skipSpace(newlines: true)
            alternatives.append(try parseSequence(nested: nested))
        }
        return alternatives
    }

    private mutating func parseSequence(nested: Bool) throws(SyntaxError) -> [GrammarTerm] {
        var terms: [GrammarTerm] = []
        /// Whether `terms.last` is the item a repetition operator applies to.
        var hasItem = false
        /// llama.cpp's `n_prev_rules`: how many symbols the last item stands for.
        var itemSymbols = 1
        /// How deep the last item nests.
        var itemDepth = 1
        while let scalar = peek {
            let start = position
            var item: GrammarTerm?
            switch scalar {
            case "\"":
                item = try parseLiteral()
                itemSymbols = 1
                itemDepth = 1
            case "[":
                item = try parseClass()
                itemSymbols = 1
                itemDepth = 1
            case "<", "!":
                item = .token(try parseToken())
                itemSymbols = 1
                itemDepth = 1
            case _ where Self.isWordCharacter(scalar):
                item = .rule(symbol(try parseName(), referencedAt: start))
                itemSymbols = 1
                itemDepth = 1
            case "(":
                let (group, symbolsMade, depth) = try parseGroup()
                item = group
                itemSymbols = max(1, symbolsMade)
                itemDepth = depth
            case ".":
                position += 1
                item = .any
                itemSymbols = 1
                itemDepth = 1
            case "*", "+", "?", "{":
                let (min, max) = try parseRepetition()
                guard hasItem, let last = terms.popLast() else {
                    throw error("'\(scalar)' needs an item before it to repeat", at: start)
                }
                let total = max.map { $0 > 0 ? $0 : Swift.max(min, 1) } ?? Swift.max(min, 1)
                if itemSymbols * total >= Self.maximumRepetition {
                    throw error("this repetition would make \(itemSymbols * total) rules (\(itemSymbols) × \(total)), reaching "
                                + "llama.cpp's limit of \(Self.maximumRepetition); reduce the counts or simplify the "
                                + "repeated group", at: start)
                }
                symbolCount += max.map { $0 - min } ?? 1
                itemSymbols *= total
                itemDepth += 1
                if itemDepth > Self.maximumNesting {
                    throw error("groups and repetitions of repetitions ('\"a\"??') nest deeper than the limit of "
                                + "\(Self.maximumNesting)", at: start)
                }
                deepestTerm = Swift.max(deepestTerm, itemDepth)
                if max == 0 {
                    hasItem = false
                } else {
                    terms.append(.repeated(last, min: min, max: max))
                }
                skipSpace(newlines: nested)
                continue
            default:
                return terms
            }
            skipSpace(newlines: nested)
            if let item {
                terms.append(item)
                hasItem = true
                deepestTerm = Swift.max(deepestTerm, itemDepth)
            } else {
                hasItem = false
            }
        }
        return terms
    }

    /// `"…"`; `nil` for `""`, which adds nothing (so a repetition cannot follow it).
    private mutating func parseLiteral() throws(SyntaxError) -> GrammarTerm? {
        let start = position
        position += 1
        var codePoints: [UInt32] = []
        while peek != "\"" {
            guard peek != nil else { throw error("the string literal is not closed; expected '\"'", at: start) }
            codePoints.append(try parseCharacter())
        }
        position += 1
        return codePoints.isEmpty ? nil : .literal(codePoints)
    }

    /// `[…]` or `[^…]`; `nil` for an empty class, which llama.cpp reads as nothing at all.
    private mutating func parseClass() throws(SyntaxError) -> GrammarTerm? {
        let start = position
        position += 1
        let negated = peek == "^"
        if negated { position += 1 }
        var ranges: [CharacterRanges.Range] = []
        while peek != "]" {
            guard peek != nil else { throw error("the character class is not closed; expected ']'", at: start) }
            let lower = try parseCharacter()
            var upper = lower
            if peek == "-" && peek(at: 1) != "]" {
                guard peek(at: 1) != nil else { throw error("the character class is not closed; expected ']'", at: start) }
                position += 1
                upper = try parseCharacter()
            }
            ranges.append(CharacterRanges.Range(lower: lower, upper: upper))
        }
        position += 1
        return ranges.isEmpty ? nil : .characters(CharacterRanges(negated: negated, ranges: ranges))
    }

    /// One character of a literal or class, escapes decoded.
    private mutating func parseCharacter() throws(SyntaxError) -> UInt32 {
        guard let scalar = peek else { throw error("unexpected end of the text") }
        guard scalar == "\\" else {
            position += 1
            return scalar.value
        }
        let start = position
        position += 1
        guard let letter = peek else { throw error("unexpected end of the text after '\\'") }
        position += 1
        switch letter {
        case "x": return try parseHex(digits: 2, escape: start)
        case "u": return try parseHex(digits: 4, escape: start)
        case "U": return try parseHex(digits: 8, escape: start)
        case "t": return 0x09
        case "r": return 0x0D
        case "n": return 0x0A
        case "\\", "\"", "[", "]", "-": return letter.value
        default:
            throw error("unknown escape '\\\(letter.escaped(asASCII: false))'; use \\xHH, \\uHHHH, \\UHHHHHHHH, \\t, \\n, \\r, "
                        + "\\\\, \\\", \\[, \\] or \\-", at: start)
        }
    }

    private mutating func parseHex(digits: Int, escape: Int) throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let scalar = peek, scalar.isASCII, let digit = UInt32(String(scalar), radix: 16) else {
                throw error("expected \(digits) hexadecimal digits after '\\\(scalars[escape + 1])', found \(found)")
            }
            value = value << 4 | digit
            position += 1
        }
        guard Unicode.Scalar(value) != nil else {
            let written = String(String.UnicodeScalarView(scalars[escape..<position]))
            throw error("'\(written)' is not a character: surrogates (D800 to DFFF) and code points above 10FFFF have no "
                        + "UTF-8 form, so no text could match it", at: escape)
        }
        return value
    }

    private mutating func parseToken() throws(SyntaxError) -> GrammarToken {
        let negated = peek == "!"
        if negated { position += 1 }
        guard peek == "<" else { throw error("expected '<' after '!' to begin a token, found \(found)") }
        let start = position
        position += 1
        if peek == "[" {
            position += 1
            let digitsStart = position
            while Self.isDigit(peek) { position += 1 }
            guard position > digitsStart else { throw error("expected a token id after '<[', found \(found)") }
            guard let id = UInt32(String(String.UnicodeScalarView(scalars[digitsStart..<position]))) else {
                throw error("the token id is too large", at: digitsStart)
            }
            guard peek == "]" else { throw error("expected ']' after the token id, found \(found)") }
            position += 1
            guard peek == ">" else { throw error("expected '>' to close the token, found \(found)") }
            position += 1
            return GrammarToken(id: id, text: nil, negated: negated)
        }
        while let scalar = peek, scalar != ">" { position += 1 }
        guard peek == ">" else { throw error("the token is not closed; expected '>'", at: start) }
        position += 1
        return GrammarToken(id: nil, text: String(String.UnicodeScalarView(scalars[start..<position])), negated: negated)
    }

    /// `( … )`, the number of symbols llama.cpp makes for it (the group's own and those inside),
    /// and how deep it nests.
    private mutating func parseGroup() throws(SyntaxError) -> (GrammarTerm, Int, Int) {
        let open = position
        position += 1
        skipSpace(newlines: true)
        nesting += 1
        if nesting > Self.maximumNesting {
            throw error("groups nest deeper than the limit of \(Self.maximumNesting)", at: open)
        }
        let before = symbolCount
        symbolCount += 1
        let outside = deepestTerm
        deepestTerm = 0
        let alternatives = try parseAlternates(nested: true)
        let depth = deepestTerm + 1
        deepestTerm = outside
        guard peek == ")" else {
            let location = SourceLocation(offset: open, in: scalars)
            throw error("expected ')' to close the group opened at line \(location.line), column \(location.column), "
                        + "found \(found)")
        }
        position += 1
        nesting -= 1
        return (.group(alternatives), symbolCount - before, depth)
    }

    /// The bounds of `*`, `+`, `?`, `{m}`, `{m,}` or `{m,n}`, with the white space after it
    /// skipped as llama.cpp does inside the braces.
    private mutating func parseRepetition() throws(SyntaxError) -> (min: Int, max: Int?) {
        let operatorScalar = scalars[position]
        position += 1
        switch operatorScalar {
        case "*": return (0, nil)
        case "+": return (1, nil)
        case "?": return (0, 1)
        default: break
        }
        skipSpace(newlines: false)
        let min = try parseCount()
        skipSpace(newlines: false)
        var max: Int? = min
        if peek == "," {
            position += 1
            skipSpace(newlines: false)
            max = Self.isDigit(peek) ? try parseCount() : nil
            skipSpace(newlines: false)
            guard peek == "}" else { throw error("expected '}' to close the repetition count, found \(found)") }
        } else if peek != "}" {
            throw error("expected ',' or '}' after the repetition count, found \(found)")
        }
        position += 1
        if let max, max < min {
            throw error("the repetition's largest count \(max) is below its smallest \(min)")
        }
        return (min, max)
    }

    private mutating func parseCount() throws(SyntaxError) -> Int {
        let start = position
        guard Self.isDigit(peek) else { throw error("expected a number in the repetition count, found \(found)") }
        while Self.isDigit(peek) { position += 1 }
        let digits = String(String.UnicodeScalarView(scalars[start..<position]))
        guard digits.count <= 9, let count = Int(digits), count <= Self.maximumRepetition else {
            throw error("the repetition count \(digits) is over the limit of \(Self.maximumRepetition)", at: start)
        }
        return count
    }

    // MARK: Size

    /// An estimate of the elements llama.cpp stores for these alternatives, repetitions copied out.
    private static func expandedSize(ofAlternatives alternatives: [[GrammarTerm]]) -> Int {
        alternatives.reduce(alternatives.count) { total, sequence in
            sequence.reduce(total) { saturatingAdd($0, expandedSize(of: $1)) }
        }
    }

    private static func expandedSize(of term: GrammarTerm) -> Int {
        switch term {
        case .literal(let codePoints): codePoints.count
        case .characters(let ranges): 2 * ranges.ranges.count
        case .any, .token, .rule: 1
        case .group(let alternatives): saturatingAdd(1, expandedSize(ofAlternatives: alternatives))
        case .repeated(let inner, let min, let max):
            saturatingMultiply(expandedSize(of: inner), Swift.max(min, 1) + (max.map { $0 - min } ?? 1) * 2)
        }
    }

    private static func saturatingAdd(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }

    private static func saturatingMultiply(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? Int.max : product
    }
}
