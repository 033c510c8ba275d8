import Hummingbird

/// Answers a request that no route takes with an OpenAI-style JSON error, where the router would
/// send an empty 404: a 405 with `Allow` for a known path asked with another method (`HEAD`,
/// `OPTIONS`, `PUT`…), a 404 naming the endpoints for an unknown path.
struct UnroutedRequestAnswer: RouterMiddleware {
    typealias Context = BasicRequestContext
    /// The methods each path answers (`/v1/models`: `GET`).
    let methods: [String: [HTTPRequest.Method]]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
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
}
