@testable import TideFormat

/// Decides whether a checked grammar's `root` rule matches a whole text: recursive descent that
/// returns, for a rule and a start, the set of positions where a match can end, memoized. It
/// handles the non-left-recursive grammars ``Grammar`` lets through, on short texts.
struct GrammarRecognizer {
    private let grammar: ParsedGrammar
    private let text: [UInt32]
    private var memo: [Int: [Int: Set<Int>]] = [:]

    /// Whether `grammar` accepts all of `text`.
    static func accepts(_ grammar: Grammar, _ text: String) throws -> Bool {
        let parsed = try GrammarParser.parse(grammar.text)
        var recognizer = GrammarRecognizer(grammar: parsed, text: text.unicodeScalars.map(\.value))
        return recognizer.rule(parsed.symbol(named: "root")!, from: 0).contains(recognizer.text.count)
    }

    private init(grammar: ParsedGrammar, text: [UInt32]) {
        self.grammar = grammar
        self.text = text
    }

    private mutating func rule(_ id: Int, from start: Int) -> Set<Int> {
        if let known = memo[id]?[start] { return known }
        let ends = alternatives(grammar.rules[id], from: [start])
        memo[id, default: [:]][start] = ends
        return ends
    }

    private mutating func alternatives(_ alternatives: [[GrammarTerm]], from starts: Set<Int>) -> Set<Int> {
        var ends = Set<Int>()
        for sequence in alternatives {
            ends.formUnion(sequence.reduce(starts) { positions, term in self.term(term, from: positions) })
        }
        return ends
    }

    private mutating func term(_ term: GrammarTerm, from starts: Set<Int>) -> Set<Int> {
        var ends = Set<Int>()
        for start in starts {
            switch term {
            case .literal(let codePoints):
                if start + codePoints.count <= text.count && Array(text[start..<start + codePoints.count]) == codePoints {
                    ends.insert(start + codePoints.count)
                }
            case .characters(let ranges):
                if start < text.count && ranges.contains(text[start]) { ends.insert(start + 1) }
            case .any:
                if start < text.count { ends.insert(start + 1) }
            case .token:
                break
            case .rule(let id):
                ends.formUnion(rule(id, from: start))
            case .group(let groupAlternatives):
                ends.formUnion(alternatives(groupAlternatives, from: [start]))
            case .repeated(let inner, let min, let max):
                var frontier: Set<Int> = [start]
                var seen: Set<Int> = min == 0 ? [start] : []
                var count = 0
                while !frontier.isEmpty && count < (max ?? Int.max) {
                    count += 1
                    let next = self.term(inner, from: frontier)
                    frontier = count >= min ? next.subtracting(seen) : next
                    if count >= min { seen.formUnion(next) }
                }
                ends.formUnion(seen)
            }
        }
        return ends
    }
}
