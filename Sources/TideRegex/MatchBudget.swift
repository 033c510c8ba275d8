/// How much work a match may take before it gives up with ``MatchTooCostly``.
///
/// Matching is linear (text length × program size) but a long text and a large program can still
/// make a slow product; a budget bounds it. The matcher also gives up when its task is cancelled.
public struct MatchBudget: Sendable {
    /// The time by which the match must be done, if any.
    public var deadline: ContinuousClock.Instant?
    /// The most VM steps (instructions followed by a thread), if limited.
    public var maximumSteps: Int?

    /// A budget.
    public init(deadline: ContinuousClock.Instant? = nil, maximumSteps: Int? = nil) {
        self.deadline = deadline
        self.maximumSteps = maximumSteps
    }

    /// No limit but task cancellation.
    public static let unlimited = MatchBudget()
}

/// A match given up before it was done: its budget ran out or its task was cancelled.
public struct MatchTooCostly: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the matcher stopped.
    public enum Reason: Sendable, Hashable {
        /// The deadline passed.
        case deadline
        /// The step limit was reached.
        case steps
        /// The task was cancelled.
        case cancelled
    }

    /// Why.
    public var reason: Reason
    /// The steps taken before stopping.
    public var steps: Int
    /// The text's length in Unicode scalars.
    public var textLength: Int

    /// A stop.
    public init(reason: Reason, steps: Int, textLength: Int) {
        self.reason = reason
        self.steps = steps
        self.textLength = textLength
    }

    public var description: String {
        let why = switch reason {
        case .deadline: "ran out of time"
        case .steps: "ran out of steps"
        case .cancelled: "was cancelled"
        }
        return "the match \(why) after \(steps) steps on a text of \(textLength) scalars"
    }
}
