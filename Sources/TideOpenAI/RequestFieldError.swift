/// A field of a request that is well-formed JSON but cannot be taken as sent: a whole-number field
/// given a fraction, or a feature Tide does not offer. Servers answer it with a 400 naming `field`.
public struct RequestFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field, as spelled on the wire (`max_tokens`).
    public var field: String
    /// What is wrong and what to send instead.
    public var message: String
    /// A code a client may act on (`thread_unsupported_request`); `nil` for none.
    public var code: String?

    /// The error for `field`.
    public init(field: String, message: String, code: String? = nil) {
        self.field = field
        self.message = message
        self.code = code
    }

    public var description: String { message }
}
