import Foundation
import Hummingbird

/// Lets through only requests with `Authorization: Bearer <key>` or, as Anthropic's clients send
/// it, `x-api-key: <key>` (all of them when there is no key); `/health` is always open, for load
/// balancers.
struct BearerTokenCheck: RouterMiddleware {
    typealias Context = BasicRequestContext
    let key: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key, request.uri.path != "/health" else { return try await next(request, context) }
        let bearer = request.headers[.authorization].flatMap { value in
            value.lowercased().hasPrefix("bearer ") ? String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
        }
        let apiKey = request.headers.first { $0.name.canonicalName == "x-api-key" }?.value
        let given = [bearer, apiKey].compactMap { $0 }
        guard given.contains(where: { Self.same($0, key) }) else {
            let message = given.isEmpty ? "Missing API key: send it as 'Authorization: Bearer KEY' (or 'x-api-key: KEY')" : "Incorrect API key"
            return APIError(status: 401, message: message, code: "invalid_api_key").response(to: request.uri.path)
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
