import Hummingbird
import Logging

/// Gives every error an OpenAI-style JSON body, where the router would send an empty one: a 405
/// with `Allow` for a known path asked with another method (`HEAD`, `OPTIONS`, `PUT`…), a 404
/// naming the endpoints for an unknown path, and for anything else a route throws, its status
/// (a 500 when it has none), so that clients read the same body on every 4xx and 5xx. An
/// endpoint throws what it refuses (an ``APIError`` renders itself); the log says what was refused.
struct ErrorAnswer: RouterMiddleware {
    typealias Context = BasicRequestContext
    /// The methods each path answers (`/v1/models`: `GET`).
    let methods: [String: [HTTPRequest.Method]]
    /// Where refusals are logged.
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return unrouted(request)
        } catch {
            return Self.answer(error, to: request.uri.path, logger: logger)
        }
    }

    /// `error` as the client of `path` reads it, logged to `logger`: an ``APIError`` as it renders
    /// itself, Hummingbird's own errors with their status, anything else a 500.
    static func answer(_ error: any Error, to path: String, logger: Logger) -> Response {
        let refusal = switch error {
        case let error as APIError: error
        case let error as HTTPError:
            APIError(status: error.status.code, message: error.body ?? error.status.reasonPhrase,
                     type: error.status.code >= 500 ? "server_error" : "invalid_request_error")
        default: APIError.unexpected(error)
        }
        logger.info("refused a request: \(refusal)")
        return refusal.response(to: path)
    }

    /// The answer to a request no route takes.
    private func unrouted(_ request: Request) -> Response {
        let path = request.uri.path.count > 1 && request.uri.path.hasSuffix("/") ? String(request.uri.path.dropLast()) : request.uri.path
        guard let allowed = methods[path] else {
            let endpoints = methods.sorted { $0.key < $1.key }.map { "\($0.value.map(\.rawValue).joined(separator: "/")) \($0.key)" }
            return APIError(status: 404, message: "There is no \(path) here; the endpoints are \(endpoints.joined(separator: ", "))",
                            code: "not_found").response(to: path)
        }
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        var response = APIError(status: 405, message: "\(path) does not answer \(request.method.rawValue); use \(allow)",
                                code: "method_not_allowed").response(to: path)
        response.headers[.allow] = allow
        return response
    }
}
