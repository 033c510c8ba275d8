import Foundation
import Hummingbird

/// Keeps web pages from driving the server through a visitor's browser, as careful local
/// servers do. A browser sends `Origin` with every cross-origin request (a `fetch`, a form's
/// post), and scripts or SDKs send none: a request whose `Origin` is not the server's own and not
/// one ``BrowserAccess/corsOrigins`` allows is refused with 403 before any work. Allowed origins
/// get CORS' headers, and their preflights (`OPTIONS`) are answered. When the server listens on
/// loopback, a `Host` that names neither the address it listens on, `localhost`, nor a name in
/// ``BrowserAccess/allowedHosts`` is refused with 403 too: a page that rebinds its own name to
/// 127.0.0.1 (DNS rebinding) still sends that name.
struct BrowserOriginCheck: RouterMiddleware {
    typealias Context = BasicRequestContext
    let access: BrowserAccess
    /// The address the server listens on, as `--host` gave it.
    let host: String
    /// The port it listens on.
    let port: Int

    /// The headers a preflight may ask for: what OpenAI's and Anthropic's clients send.
    static let allowedHeaders = "Authorization, Content-Type, OpenAI-Organization, OpenAI-Project, X-Stainless-Retry-Count, "
        + "X-Api-Key, Anthropic-Version, Anthropic-Beta"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = hostRefusal(request.head.authority) { return refusal.response(to: request.uri.path) }
        guard let origin = request.headers[.origin] else { return try await next(request, context) }
        let allowed = access.allows(origin: origin)
        guard allowed || isOwn(origin: origin) else {
            return APIError(status: 403, message: "requests from web pages at \(origin) are refused: a page a browser shows must not "
                                + "drive this server; start tide serve with --cors-origin \(origin) to allow that origin",
                            type: "permission_error", code: "origin_not_allowed").response(to: request.uri.path)
        }
        guard allowed else { return try await next(request, context) }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var response = Response(status: .noContent)
            response.headers[.accessControlAllowMethods] = "GET, POST, OPTIONS"
            response.headers[.accessControlAllowHeaders] = Self.allowedHeaders
            response.headers[.accessControlMaxAge] = "600"
            return corsHeaders(on: response, origin: origin)
        }
        return corsHeaders(on: try await next(request, context), origin: origin)
    }

    private func corsHeaders(on response: Response, origin: String) -> Response {
        var response = response
        response.headers[.accessControlAllowOrigin] = access.corsOrigins.contains("*") ? "*" : origin
        response.headers[.vary] = "Origin"
        return response
    }

    /// A 403 for a `Host` header a loopback server must not answer; `nil` for one it may.
    private func hostRefusal(_ header: String?) -> APIError? {
        guard BrowserAccess.isLoopback(host) || !access.allowedHosts.isEmpty else { return nil }
        guard let header else {
            return APIError(status: 403, message: "the request has no Host header; send the address the server listens on",
                            type: "permission_error", code: "host_not_allowed")
        }
        let name = BrowserAccess.hostName(of: header)
        guard !access.allowsHost(name, listeningOn: host) else { return nil }
        return APIError(status: 403, message: "Host '\(header)' is not this server's address (\(host)); a web page that renamed itself "
                            + "to reach it is refused. Start tide serve with --allowed-hosts \(name) if that name is yours",
                        type: "permission_error", code: "host_not_allowed")
    }

    /// Whether `origin` is the server itself (`http://127.0.0.1:PORT`).
    private func isOwn(origin: String) -> Bool {
        guard let url = URL(string: origin), url.scheme == "http", let name = url.host, url.port ?? 80 == port else { return false }
        return access.allowsHost(name, listeningOn: host)
    }
}

/// Which browsers' requests `tide serve` answers (``BrowserOriginCheck``): `--cors-origin` and
/// `--allowed-hosts`.
public struct BrowserAccess: Sendable, Hashable {
    /// Origins (`https://app.example`, or `*` for any) whose pages may call the server; their
    /// requests get CORS' headers. Every other page's requests are refused.
    public var corsOrigins: [String]
    /// Host names, besides the address listened on and `localhost`, that a request may name in
    /// its `Host` header (a name the operator gave this machine).
    public var allowedHosts: [String]

    /// Access for `corsOrigins` and `allowedHosts`; by default no page and no other name.
    public init(corsOrigins: [String] = [], allowedHosts: [String] = []) {
        self.corsOrigins = corsOrigins
        self.allowedHosts = allowedHosts
    }

    /// Whether `origin`'s pages may call the server.
    func allows(origin: String) -> Bool {
        corsOrigins.contains("*") || corsOrigins.contains { $0.caseInsensitiveCompare(Self.trimmed(origin)) == .orderedSame }
    }

    /// Whether a request may name `name` (no port, no brackets) as its host, to a server listening on `address`.
    func allowsHost(_ name: String, listeningOn address: String) -> Bool {
        let name = name.lowercased()
        let own = [Self.hostName(of: address), "localhost", "127.0.0.1", "::1"] + allowedHosts.map { $0.lowercased() }
        if own.contains(name) { return true }
        // Any address of the loopback range reaches a server on loopback.
        return Self.isLoopback(address) && name.hasPrefix("127.") && name.split(separator: ".").count == 4
            && name.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }

    /// The host of a `Host` header or an address: without its port, and without an IPv6 address's brackets.
    static func hostName(of header: String) -> String {
        let text = header.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<close]) }
        if text.filter({ $0 == ":" }).count > 1 { return text }
        return String(text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// Whether `address` (as `--host` gives it) is a loopback address or `localhost`.
    static func isLoopback(_ address: String) -> Bool {
        let name = hostName(of: address)
        return name == "localhost" || name == "::1" || name.hasPrefix("127.")
    }

    /// An origin without a trailing slash.
    private static func trimmed(_ origin: String) -> String {
        origin.hasSuffix("/") ? String(origin.dropLast()) : origin
    }
}
