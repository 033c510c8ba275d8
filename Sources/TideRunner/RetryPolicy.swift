import TideCore

/// How a case whose server failed in a way that may pass (``Transience``) is run again: up to
/// ``retries`` times, after a wait that doubles each time from ``firstWait`` up to ``longestWait``,
/// with jitter (a random share of the wait, so that clients that failed together do not come back
/// together), and never sooner than a server's `Retry-After` asks.
public struct RetryPolicy: Sendable, Hashable {
    /// The most times a case is run again (`tide run --retries`).
    public var retries: Int
    /// The wait before the first retry, and the longest a backed-off wait grows to.
    public var firstWait: Duration = .milliseconds(500)
    public var longestWait: Duration = .seconds(30)
    /// The longest `Retry-After` honoured; a server that asks for more is given up on.
    public var longestRetryAfter: Duration = .seconds(120)

    /// The default number of retries.
    public static let standardRetries = 3
    /// The retries `--retries` accepts.
    public static let range = 0...20

    public init(retries: Int = RetryPolicy.standardRetries) {
        self.retries = retries
    }

    /// The wait before retry `attempt` (from 1) after a failure of `transience`; `nil` when the
    /// retries are spent or the server asks for a longer wait than ``longestRetryAfter``.
    /// `jitter` draws a share from 0 to 1.
    public func wait(before attempt: Int, after transience: Transience,
                     jitter: () -> Double = { Double.random(in: 0...1) }) -> Duration? {
        guard attempt >= 1, attempt <= retries else { return nil }
        if let asked = transience.retryAfter, asked > longestRetryAfter { return nil }
        let doubled = firstWait * Double(1 << min(attempt - 1, 20))
        let backoff = min(doubled, longestWait)
        // Half the wait, and a random share of the other half.
        let jittered = backoff * (0.5 + 0.5 * min(max(jitter(), 0), 1))
        return max(jittered, transience.retryAfter ?? .zero)
    }
}
