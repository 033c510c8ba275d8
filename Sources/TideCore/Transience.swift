/// That an error may pass when the same request is made again — a server that refused the
/// connection or reset it, was busy (HTTP 429), failed (500, 502, 503, 504) or cut its stream —
/// and how long the server asked to wait first. An error that says the request itself is wrong
/// (any other 4xx) is not transient: asking again gives the same answer.
public struct Transience: Sendable, Hashable, Codable {
    /// The wait the server asked for (`Retry-After`), if it said.
    public var retryAfter: Duration?

    public init(retryAfter: Duration? = nil) {
        self.retryAfter = retryAfter
    }

    /// The transience of `error`, or of the error behind it; `nil` for one that is not transient.
    public static func of(_ error: any Error) -> Transience? {
        (error as? any PossiblyTransientError)?.transience
    }
}

/// An error that may be transient (``Transience``), or wraps one that may be.
public protocol PossiblyTransientError: Error {
    /// Its transience; `nil` when asking again would not help.
    var transience: Transience? { get }
}
