/// A regular expression that matches in linear time: parsed by ``RegexParser``, compiled by
/// ``RegexCompiler`` and run by a Pike VM, so no pattern can take exponential time.
///
/// Matching is over Unicode scalars. A search is unanchored and reports the leftmost match; among
/// matches starting there, it reports the one Perl, PCRE or Swift `Regex` would (leftmost-first:
/// the earlier alternative, and as many repetitions as possible for a greedy quantifier or as
/// few as possible for a lazy one).
public struct Pattern: Sendable {
    /// The pattern as written.
    public let source: String
    /// The parsed pattern.
    public let parsed: ParsedPattern
    private let program: RegexProgram

    /// Parses and compiles `source`; throws when it is malformed, needs backtracking or is too large.
    public init(_ source: String) throws(PatternError) {
        self.source = source
        parsed = try RegexParser.parse(source)
        program = RegexCompiler.compile(parsed)
    }

    /// The leftmost match in `text`, if any; throws when the budget runs out first.
    public func firstMatch(in text: String, budget: MatchBudget = .unlimited) throws(MatchTooCostly) -> Match? {
        let scalars = text.unicodeScalars
        var vm = PikeVM(program: program, text: Array(scalars), budget: budget, anyMatch: false)
        guard let slots = try vm.run() else { return nil }
        var indices = Array(scalars.indices)
        indices.append(scalars.endIndex)
        let ranges = stride(from: 0, to: slots.count, by: 2).map { slot -> Range<String.Index>? in
            slots[slot] < 0 || slots[slot + 1] < 0 ? nil : indices[slots[slot]]..<indices[slots[slot + 1]]
        }
        return Match(range: ranges[0]!, captures: Array(ranges.dropFirst()), groups: parsed.captures)
    }

    /// Whether `text` holds a match somewhere; throws when the budget runs out first.
    public func matches(_ text: String, budget: MatchBudget = .unlimited) throws(MatchTooCostly) -> Bool {
        var vm = PikeVM(program: program, text: Array(text.unicodeScalars), budget: budget, anyMatch: true)
        return try vm.run() != nil
    }
}

/// Where a ``Pattern`` matched, as ranges of the searched string.
public struct Match: Sendable, Hashable {
    /// The whole match.
    public let range: Range<String.Index>
    /// Each capturing group's last match (`captures[0]` is group 1), or `nil` if it took no part.
    public let captures: [Range<String.Index>?]
    private let groups: [Capture]

    init(range: Range<String.Index>, captures: [Range<String.Index>?], groups: [Capture]) {
        self.range = range
        self.captures = captures
        self.groups = groups
    }

    /// The range of the group named `name` (`(?<name> … )`), if it took part in the match.
    public subscript(name: String) -> Range<String.Index>? {
        groups.first { $0.name == name }.flatMap { captures[$0.index - 1] }
    }
}
