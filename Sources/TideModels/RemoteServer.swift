import Foundation
import TideCore

/// An OpenAI-compatible server that runs models elsewhere (vLLM, llama-server, Ollama, TGI,
/// `tide serve`), and the key that opens it.
public struct RemoteServer: Sendable, Hashable, CustomStringConvertible {
    /// The server's base URL; `/v1/…` paths are added to it.
    public var url: URL
    /// Sent as a bearer token; never printed.
    public var apiKey: String?
    /// The API the server is spoken to in (Chat Completions unless said).
    public var api = RemoteAPI.chat

    /// A server at `url`, with the key from the environment when none is given.
    public init(url: URL, apiKey: String? = RemoteServer.environmentKey()) {
        self.url = url
        self.apiKey = apiKey
    }

    /// Reads a base URL as users type it: `[http(s)://]host[:port][/path]` (http when no scheme
    /// is given), a trailing `/v1` dropped (clients are often configured with it).
    public init(parsing text: String, apiKey: String? = RemoteServer.environmentKey()) throws(RemoteServerError) {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.contains("://") { trimmed = "http://" + trimmed }
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        if trimmed.hasSuffix("/v1") { trimmed.removeLast(3) }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host?.isEmpty == false
        else { throw RemoteServerError(text: text) }
        self.init(url: url, apiKey: apiKey)
    }

    /// The key in `variable` when one is named, else in `TIDE_API_KEY`, else in
    /// `OPENAI_API_KEY`; `nil` if unset or empty.
    public static func environmentKey(_ variable: String? = nil) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let names = variable.map { [$0] } ?? ["TIDE_API_KEY", "OPENAI_API_KEY"]
        return names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    /// The URL alone: the key is never shown.
    public var description: String { url.absoluteString }
}

/// A `--remote` value that is not an HTTP(S) URL.
public struct RemoteServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was given.
    public let text: String

    public var description: String {
        "'\(text)' is not a server URL; give one like http://127.0.0.1:8080 (the /v1 paths are added)"
    }
}
