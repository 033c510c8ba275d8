import TideCore

/// What went wrong talking to a remote model, said so a user knows what to do.
public enum RemoteError: RemediableError, PossiblyTransientError, Sendable, Hashable {
    /// No connection could be made.
    case unreachable(url: String, reason: String)
    /// The server sent nothing for too long.
    case timedOut(url: String, seconds: Int)
    /// The server answered with an error status; its message, if it sent one, and the wait it
    /// asked for (`Retry-After`, in seconds), if it did.
    case http(status: Int, url: String, message: String, retryAfter: Int? = nil)
    /// The stream held something that is not a chat-completion chunk.
    case malformed(url: String, detail: String)
    /// The stream ended before the reply did (the server closed the connection).
    case dropped(url: String)
    /// The server reported an error in the stream.
    case server(url: String, message: String)
    /// A raw prompt (``GenerationParameters/rawPrompt``) was asked of a model that takes chat messages only.
    case rawPrompt(model: String)

    public var description: String {
        switch self {
        case .unreachable(let url, let reason): "cannot reach \(url): \(reason)"
        case .timedOut(let url, let seconds): "\(url) sent nothing for \(seconds) s; giving up: wait longer or check the server"
        case .http(let status, let url, let message, _):
            "\(url) answered HTTP \(status)" + (message.isEmpty ? "" : ": \(message)")
        case .malformed(let url, let detail): "\(url) sent a stream Tide cannot read: \(detail)"
        case .dropped(let url): "\(url) closed the stream before the reply was complete"
        case .server(let url, let message): "\(url) reported an error: \(message)"
        case .rawPrompt(let model):
            "the remote model '\(model)' takes chat messages, which its server renders; a raw prompt needs a local model"
        }
    }

    /// A connection refused or reset, a busy or failing server (429, 500, 502, 503, 504), a
    /// stream cut short: asking again may work. A timeout is not retried (it would cost as long
    /// again), nor any other answer of the server.
    public var transience: Transience? {
        switch self {
        case .unreachable, .dropped: Transience()
        case .http(let status, _, _, let retryAfter) where [429, 500, 502, 503, 504].contains(status):
            Transience(retryAfter: retryAfter.map { .seconds($0) })
        default: nil
        }
    }

    public var remedies: [Remedy] {
        if case .timedOut = self { [.remoteTimeout] } else { [] }
    }
}
