/// Random patterns and subjects for comparing ``Pattern`` with Swift's `Regex`.
///
/// The patterns stay in the subset where both engines mean the same thing and where Swift's
/// backtracking stays fast: no quantifier inside a quantified group, no quantified group that can
/// match the empty string, no quantified anchor, flags only at the start. The subjects avoid
/// `\r` (Swift treats it as a line ending for `.` and `(?m)`; this engine only `\n`), and the
/// subjects of patterns with `\b` or `\B` avoid digits (Swift's `\b` does not count them as word
/// characters, though its `\w` does).
struct PatternGenerator<Random: RandomNumberGenerator> {
    var random: Random

    private static var literals: [String] { ["a", "b", "c", "A", "é", "\\.", " ", "-", "\\n", "\\x62", "\\u{E9}"] }
    private static var classes: [String] {
        ["[ab]", "[^a]", "[a-c]", "[A-Za]", "\\d", "\\w", "\\s", "\\W", "\\D", "\\S", "[\\d.]", "[^\\s]", "[é-]"]
    }
    private static var anchors: [String] { ["^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z"] }
    private static var quantifiers: [String] { ["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "{,2}"] }
    private static var flags: [String] { ["(?i)", "(?s)", "(?m)", "(?im)", "(?is)"] }
    private static var alphabet: [String] { ["a", "b", "c", "A", "B", "1", " ", "\n", ".", "é", "É", "-", "_"] }

    /// A pattern.
    mutating func pattern() -> String {
        let prefix = chance(0.2) ? pick(Self.flags) : ""
        return prefix + expression(depth: 0, quantifiable: true).text
    }

    /// A subject of up to 10 scalars for `pattern`.
    mutating func subject(for pattern: String) -> String {
        let digitFree = pattern.contains("\\b") || pattern.contains("\\B")
        let alphabet = Self.alphabet.filter { !digitFree || $0 != "1" }
        return (0..<Int.random(in: 0...10, using: &random)).map { _ in pick(alphabet) }.joined()
    }

    /// Alternatives of concatenations; `nullable` when it can match the empty string.
    private mutating func expression(depth: Int, quantifiable: Bool) -> (text: String, nullable: Bool) {
        let branches = (0..<(chance(0.25) ? 2 : 1)).map { _ in concatenation(depth: depth, quantifiable: quantifiable) }
        return (branches.map(\.text).joined(separator: "|"), branches.contains { $0.nullable })
    }

    private mutating func concatenation(depth: Int, quantifiable: Bool) -> (text: String, nullable: Bool) {
        let items = (0..<Int.random(in: 1...4, using: &random)).map { _ in item(depth: depth, quantifiable: quantifiable) }
        return (items.map(\.text).joined(), items.allSatisfy(\.nullable))
    }

    private mutating func item(depth: Int, quantifiable: Bool) -> (text: String, nullable: Bool) {
        let quantify = quantifiable && chance(0.35)
        let quantifier = quantify ? pick(Self.quantifiers) + (chance(0.3) ? "?" : "") : ""
        let optional = quantifier.hasPrefix("*") || quantifier.hasPrefix("?") || quantifier.hasPrefix("{0") || quantifier.hasPrefix("{,")
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4: return (pick(Self.literals) + quantifier, optional)
        case 4: return ("." + quantifier, optional)
        case 5..<7: return (pick(Self.classes) + quantifier, optional)
        case 7: return (pick(Self.anchors), true)
        default:
            guard depth < 2 else { return (pick(Self.literals) + quantifier, optional) }
            let body = expression(depth: depth + 1, quantifiable: !quantify)
            let open = chance(0.5) ? "(" : "(?:"
            if quantify && body.nullable { return (open + body.text + ")", true) }
            return (open + body.text + ")" + quantifier, body.nullable || optional)
        }
    }

    private mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &random) < probability }

    private mutating func pick(_ choices: [String]) -> String { choices.randomElement(using: &random)! }
}
