import Hummingbird

/// Gives every error an OpenAI-style JSON body, where the router would send an empty one: a 405
/// with `Allow` for a known path asked with another method (`HEAD`, `OPTIONS`, `PUT`…), a 404
/// naming the endpoints for an unknown path, and for anything else a route throws, its status
/// (a 500 when it has none), so that clients read the same body on every 4xx and 5xx.
struct ErrorAnswer: RouterMiddleware {
    typealias Context = BasicRequestContext
    /// The methods each path answers (`/v1/models`: `GET`).
    let methods: [String: [HTTPRequest.Method]]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return unrouted(request)
        } catch let error as HTTPError {
            let status = error.status.code
            return APIError(status: status, message: error.body ?? error.status.reasonPhrase,
                            type: status >= 500 ? "server_error" : "invalid_request_error").response
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError(status: 500, message: "\(error)", type: "server_error").response
        }
    }

    /// The answer to a request no route takes.
    private func unrouted(_ request: Request) -> Response {
        let path = request.uri.path.count > 1 && request.uri.path.hasSuffix("/") ? String(request.uri.path.dropLast()) : request.uri.path
        guard let allowed = methods[path] else {
            let endpoints = methods.sorted { $0.key < $1.key }.map { "\($0.value.map(\.rawValue).joined(separator: "/")) \($0.key)" }
            return APIError(status: 404, message: "There is no \(path) here; the endpoints are \(endpoints.joined(separator: ", "))",
                            code: "not_found").response
        }
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        var response = APIError(status: 405, message: "\(path) does not answer \(request.method.rawValue); use \(allow)",
                                code: "method_not_allowed").response
        response.headers[.allow] = allow
        return response
    }
}
