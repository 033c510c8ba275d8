import TideOpenAI

/// A request the server refuses or cannot carry out, with its HTTP status and an OpenAI-style
/// body (`{"error": {"message", "type", "param", "code"}}`).
public struct APIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The body.
    public var body: APIErrorBody

    /// An error of `type` with `status`.
    public init(status: Int, message: String, type: String = "invalid_request_error", code: String? = nil,
                param: String? = nil) {
        self.status = status
        body = APIErrorBody(message: message, type: type, code: code, param: param)
    }

    /// A 400 about the request field `param`.
    static func invalid(_ message: String, param: String? = nil, code: String? = nil) -> APIError {
        APIError(status: 400, message: message, code: code, param: param)
    }

    public var description: String { "\(status) \(body.error.message)" }
}
