import Hummingbird
import TideFormat
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

    public func response(from request: Request, context: some RequestContext) throws -> Response { response(to: request.uri.path) }

    /// The error as its response to a request for `path`: its status and the body that path's
    /// API gives its errors (``ErrorShape``).
    func response(to path: String) -> Response {
        switch ErrorShape(path: path) {
        case .openAI: (try? Response.json(body, status: status)) ?? Response(status: .internalServerError)
        case .anthropic: Response.json(anthropicBody, status: status)
        }
    }

    /// The error as Anthropic's API writes one: `{"type": "error", "error": {"type", "message"}}`,
    /// the type named by the status as Anthropic names it; a coded error says its code in
    /// `details.error_code` (with the field it is about in `details.unsupported`), where
    /// Anthropic's clients read it.
    var anthropicBody: JSONValue {
        let type = switch status.code {
        case 400, 422: "invalid_request_error"
        case 401: "authentication_error"
        case 403: "permission_error"
        case 404: "not_found_error"
        case 413: "request_too_large"
        case 429: "rate_limit_error"
        case 503, 529: "overloaded_error"
        default: status.code >= 500 ? "api_error" : "invalid_request_error"
        }
        var error: JSONValue = .fields(["type": .string(type), "message": .string(body.error.message)])
        if let code = body.error.code, case .object(var fields) = error {
            fields.members.append(.init(key: "details", value: .fields([
                "error_code": .string(code), "unsupported": .array(body.error.param.map { [.string($0)] } ?? []),
            ])))
            error = .object(fields)
        }
        return .fields(["type": .string("error"), "error": error])
    }

    public var description: String { "\(status.code) \(body.error.message)" }
}

/// Which API's error body a request gets: Anthropic's for the Messages API (`/v1/messages`),
/// OpenAI's for every other path.
enum ErrorShape {
    case openAI, anthropic

    /// The shape for a request to `path`.
    init(path: String) {
        self = path == "/v1/messages" || path.hasPrefix("/v1/messages/") ? .anthropic : .openAI
    }
}
