import TideScript

/// A run set against an earlier one (`tide run --baseline`), check by check on the cases both
/// have: new failures and new passes, pass rates that moved beyond the baseline's 95% interval,
/// and measures that moved beyond their standard errors (docs/conversations.md, "Against a
/// baseline").
///
/// A case is known by its file, data row and target; a check within it by its text and how
/// many checks of the same text come before it, so that lines added to a script do not make its
/// checks new.
public struct BaselineComparison: Sendable {
    /// What became of one check.
    public enum Change: String, Sendable, Hashable, CaseIterable {
        /// It held in the baseline and does not now.
        case newFailure = "new failure"
        /// It failed in the baseline and holds now.
        case newPass = "new pass"
        /// It fails and the baseline did not have it.
        case newCheckFailing = "new check failing"
        /// Its verdict stands, but its pass rate fell below the baseline's interval.
        case rateFell = "pass rate fell"
        /// Its verdict stands, but its pass rate rose above the baseline's interval.
        case rateRose = "pass rate rose"
        /// Its measure's mean fell or rose by more than the standard errors allow.
        case measureFell = "measure fell"
        case measureRose = "measure rose"

        /// Whether the change makes the run worse than the baseline: a check that holds less
        /// often (a measure has no better direction, so its moves are not).
        public var isRegression: Bool { self == .newFailure || self == .newCheckFailing || self == .rateFell }
    }

    /// One check that changed: where it is, and how it fared then and now.
    public struct Entry: Sendable {
        public var change: Change
        /// `file[row]`, and the target on several.
        public var label: String
        public var now: CheckOutcome
        /// `nil` for a check the baseline did not have.
        public var then: CheckOutcome?
    }

    /// The checks that changed, in this run's order.
    public var entries: [Entry] = []
    /// Cases both runs have.
    public var sharedCases = 0
    /// Checks in this run that the baseline did not have (passing or not).
    public var newChecks = 0
    /// Cases of the baseline this run did not run.
    public var missingCases = 0

    /// How many checks changed in `change`'s way.
    public func count(_ change: Change) -> Int { entries.count { $0.change == change } }

    /// Whether anything changed for the worse.
    public var isRegression: Bool { entries.contains { $0.change.isRegression } }

    /// `outcomes` set against `baseline`'s.
    public init(outcomes: [ScriptOutcome], baseline: [ScriptOutcome]) {
        let before = Dictionary(baseline.map { (Self.key($0), $0) }) { first, _ in first }
        var seen = Set<String>()
        for outcome in outcomes {
            let key = Self.key(outcome)
            seen.insert(key)
            let earlier = before[key]
            if earlier != nil { sharedCases += 1 }
            let earlierChecks = earlier.map { Dictionary(Self.keyed($0.checks)) { first, _ in first } } ?? [:]
            for (checkKey, check) in Self.keyed(outcome.checks) {
                guard let then = earlierChecks[checkKey] else {
                    newChecks += 1
                    if !check.passed { entries.append(Entry(change: .newCheckFailing, label: outcome.label, now: check, then: nil)) }
                    continue
                }
                if let change = Self.change(from: then, to: check) {
                    entries.append(Entry(change: change, label: outcome.label, now: check, then: then))
                }
            }
        }
        missingCases = before.keys.count { !seen.contains($0) }
    }

    /// How a check changed from `then` to `now`, if it did beyond noise.
    static func change(from then: CheckOutcome, to now: CheckOutcome) -> Change? {
        if then.passed && !now.passed { return .newFailure }
        if !then.passed && now.passed { return .newPass }
        let interval = then.interval
        if now.passRate < interval.low { return .rateFell }
        if now.passRate > interval.high { return .rateRose }
        guard let before = then.measure, let after = now.measure,
              before.standardError != nil || after.standardError != nil else { return nil }
        let spread = ((before.standardError ?? 0) * (before.standardError ?? 0)
                      + (after.standardError ?? 0) * (after.standardError ?? 0)).squareRoot()
        let moved = after.mean - before.mean
        guard abs(moved) > PassStatistics.z95 * spread, moved != 0 else { return nil }
        return moved < 0 ? .measureFell : .measureRose
    }

    /// A case's key: its file, row and target.
    private static func key(_ outcome: ScriptOutcome) -> String {
        ScriptResult.label(file: outcome.file, row: outcome.row, target: outcome.target)
    }

    /// A case's checks by text and occurrence (`expect: contains "a"#2` for the second of that text).
    private static func keyed(_ checks: [CheckOutcome]) -> [(String, CheckOutcome)] {
        var occurrences: [String: Int] = [:]
        return checks.map { check in
            occurrences[check.text, default: 0] += 1
            return ("\(check.text)#\(occurrences[check.text]!)", check)
        }
    }
}
