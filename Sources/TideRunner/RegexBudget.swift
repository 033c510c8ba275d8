import TideRegex

/// What one `expect: regex` check may do: a number of the matcher's steps, the same on any
/// machine however busy, so that a check's verdict never depends on the machine's load; and a
/// wall-clock guard far above what those steps take, for a machine too slow or too busy to
/// finish them (docs/conversations.md).
public struct RegexBudget: Sendable, Hashable {
    /// The matcher's steps (an instruction followed by one of its threads) a check may take:
    /// about a second of matching on the machines Tide is measured on (docs/speed.md).
    public var steps = 20_000_000
    /// The wall-clock guard: three times what the steps take on a machine slowed ten times.
    public var guardTime: Duration = .seconds(30)

    /// The default budget.
    public init() {}

    /// A budget of `steps` steps, guarded by `guardTime`.
    public init(steps: Int, guardTime: Duration) {
        self.steps = steps
        self.guardTime = guardTime
    }

    /// The matcher's budget for a check starting now.
    func matchBudget() -> MatchBudget { MatchBudget(deadline: .now + guardTime, maximumSteps: steps) }

    /// Why a check on a reply of `characters` characters gave up.
    func explain(_ error: any Error, characters: Int) -> String {
        let reason = (error as? MatchTooCostly)?.reason
        switch reason {
        case .deadline:
            return "the regular expression ran past its wall-clock guard of \(guardTime.components.seconds) s on a reply of "
                + "\(characters) characters before its \(steps) steps were spent (the machine may be busy)"
        case .cancelled:
            return "the regular expression was cancelled on a reply of \(characters) characters"
        case .steps, nil:
            return "the regular expression needs more than its \(steps) steps on a reply of \(characters) characters: "
                + "a simpler pattern, or a shorter reply, fits"
        }
    }
}
