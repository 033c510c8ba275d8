import TideScript

/// How one expectation fared on one reply.
public struct ExpectationResult: Sendable, Hashable, Codable {
    /// The expectation, as written.
    public var expectation: Expectation
    /// Its line in the script.
    public var line: Int
    /// Whether it held.
    public var passed: Bool
    /// Why it failed: what was found instead (empty when it passed).
    public var detail: String
    /// What a check that measures found, passed or not: a similarity, a perplexity, a mean
    /// log-probability; `nil` for other checks, or when nothing could be measured.
    public var measure: Double? = nil
    /// What the judge of an `expect: judge` check gave as its reason, passed or not.
    public var reason: String? = nil

    /// The expectation in the script's spelling: `expect: contains "Paris"`.
    public var text: String { ScriptItem.expectation(expectation).printed }
}
