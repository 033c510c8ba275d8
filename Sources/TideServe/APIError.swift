import Hummingbird
import TideOpenAI

/// A request the server refuses or cannot carry out, with its HTTP status and an OpenAI-style
/// body (`{"error": {"message", "type", "param", "code"}}`). It renders itself
/// (`HTTPResponseError`): an endpoint throws it, and the client reads it.
public struct APIError: HTTPResponseError, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The body.
    public var body: APIErrorBody

    /// An error of `type` with `status`.
    public init(status: Int, message: String, type: String = "invalid_request_error", code: String? = nil,
                param: String? = nil) {
        self.status = HTTPResponse.Status(code: status)
        body = APIErrorBody(message: message, type: type, code: code, param: param)
    }

    /// A 400 about the request field `param`.
    static func invalid(_ message: String, param: String? = nil, code: String? = nil) -> APIError {
        APIError(status: 400, message: message, code: code, param: param)
    }

    /// A 500: `error`, which the server did not expect, in its own words.
    static func unexpected(_ error: any Error) -> APIError {
        APIError(status: 500, message: "\(error)", type: "server_error")
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response { response }

    /// The error as its response: its status and OpenAI-style body.
    var response: Response {
        (try? Response.json(body, status: status)) ?? Response(status: .internalServerError)
    }

    public var description: String { "\(status.code) \(body.error.message)" }
}
