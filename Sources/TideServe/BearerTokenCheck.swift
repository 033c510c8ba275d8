import Foundation
import Hummingbird

/// Lets through only requests with `Authorization: Bearer <key>` (all of them when there is no
/// key); `/health` is always open, for load balancers.
struct BearerTokenCheck: RouterMiddleware {
    typealias Context = BasicRequestContext
    let key: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key, request.uri.path != "/health" else { return try await next(request, context) }
        let given = request.headers[.authorization].flatMap { value in
            value.lowercased().hasPrefix("bearer ") ? String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
        }
        guard let given, Self.same(given, key) else {
            return APIError(status: 401, message: given == nil ? "Missing API key: send it as 'Authorization: Bearer KEY'" : "Incorrect API key",
                            code: "invalid_api_key").response
        }
        return try await next(request, context)
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
