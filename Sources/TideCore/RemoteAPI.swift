/// The API a model's server is spoken to in (`--remote-api`): OpenAI's Chat Completions (every
/// OpenAI-compatible server), Anthropic's Messages API, or OpenAI's Responses API.
public enum RemoteAPI: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case chat, messages, responses

    /// The path a reply is asked at, after the server's base URL.
    public var path: String {
        switch self {
        case .chat: "v1/chat/completions"
        case .messages: "v1/messages"
        case .responses: "v1/responses"
        }
    }

    public var description: String { rawValue }
}
