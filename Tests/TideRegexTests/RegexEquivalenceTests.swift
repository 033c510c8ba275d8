import Testing
import TideRegex
import TideTestSupport

/// ``Pattern`` against Swift's `Regex` (a backtracking engine, with the same leftmost-first
/// preferences) on generated patterns and subjects: the same match and the same groups.
@Suite struct RegexEquivalenceTests {
    /// A range as scalar offsets, to compare across engines.
    static func offsets(_ range: Range<String.Index>?, in text: String) -> Range<Int>? {
        guard let range else { return nil }
        let scalars = text.unicodeScalars
        return scalars.distance(from: scalars.startIndex, to: range.lowerBound)
            ..< scalars.distance(from: scalars.startIndex, to: range.upperBound)
    }

    @Test func generatedPatternsMatchAsSwiftRegexDoes() throws {
        var generator = PatternGenerator(random: SplitMix(seed: 0x7E6E_0001))
        var compared = 0
        var differences: [String] = []
        for _ in 0..<2_000 {
            let source = generator.pattern()
            let pattern = try Pattern(source)
            let regex = try Regex(source).matchingSemantics(.unicodeScalar).wordBoundaryKind(.simple)
            for _ in 0..<5 {
                let text = generator.subject(for: source)
                let ours = try pattern.firstMatch(in: text)
                let theirs = text.firstMatch(of: regex)
                let mine = ours.map { [Self.offsets($0.range, in: text)] + $0.captures.map { Self.offsets($0, in: text) } }
                let swift = theirs.map { match in
                    (0..<match.output.count).map { Self.offsets(match.output[$0].range, in: text) }
                }
                compared += 1
                if mine != swift {
                    differences.append("\(source.debugDescription) on \(text.debugDescription): \(String(describing: mine)) "
                                       + "but Swift \(String(describing: swift))")
                }
            }
        }
        #expect(compared == 10_000)
        #expect(differences.count == 0, "the first differences: \(differences.prefix(5))")
    }

    @Test func theGeneratorCoversEachConstruct() {
        var generator = PatternGenerator(random: SplitMix(seed: 0x7E6E_0001))
        let patterns = (0..<2_000).map { _ in generator.pattern() }.joined(separator: "\n")
        for construct in ["(?i)", "(?m)", "(?s)", "(?:", "|", "*?", "+?", "??", "{2,}", "{1,3}?", "[^", "\\b", "\\Z", "$", "\\d"] {
            #expect(patterns.contains(construct), "no generated pattern has \(construct)")
        }
    }
}
