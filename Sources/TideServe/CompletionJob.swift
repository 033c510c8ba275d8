import Foundation
import TideCore
import TideOpenAI

/// Which endpoint a request came to: `/v1/chat/completions` (messages through the chat template)
/// or `/v1/completions` (a prompt continued as plain text). It decides the request's field names
/// in errors and the shape of the reply.
enum CompletionEndpoint: Sendable {
    case chat, text

    /// The endpoint's path.
    var path: String { self == .chat ? "/v1/chat/completions" : "/v1/completions" }

    /// The request field that holds what the model is given.
    var inputField: String { self == .chat ? "messages" : "prompt" }
}

/// A completion request checked and read into Tide's terms: the conversation before the last
/// message, the message to answer (for a text completion, the prompt alone), and the parameters.
struct CompletionJob: Sendable {
    var endpoint: CompletionEndpoint
    var history: [ChatMessage]
    var question: String
    var parameters: GenerationParameters
    var stream: Bool
    var includeUsage: Bool
    /// Text the reply repeats before its own (a text completion's prompt, when it asks for `echo`).
    var echo = ""

    /// Reads a text-completion `request`, whose reply format is `format`, over the server's
    /// defaults: its prompt is continued as plain text, with no system prompt.
    init(_ request: TextCompletionRequest, format: ReplyFormat?, configuration: ServeConfiguration) throws(APIError) {
        guard !request.prompt.isEmpty else { throw .invalid("prompt is empty; send the text to continue", param: "prompt") }
        try self.init(request.chat, format: format, configuration: configuration, endpoint: .text)
        if request.echo { echo = request.prompt }
    }

    /// Reads `request`, whose reply format is `format`, over the server's defaults; anything Tide
    /// cannot do is a 400 (or a 404 for another model's name) naming the field.
    init(_ request: ChatCompletionRequest, format: ReplyFormat?, configuration: ServeConfiguration,
         endpoint: CompletionEndpoint = .chat) throws(APIError)
    {
        self.endpoint = endpoint
        guard !configuration.strictModel || request.model.lowercased() == configuration.modelName.lowercased() else {
            throw APIError(status: 404, message: "The model '\(request.model)' does not exist; this server runs '\(configuration.modelName)'",
                           code: "model_not_found", param: "model")
        }
        try Self.checkSize(of: request.messages, within: configuration.serverLimits, endpoint: endpoint)
        if let n = request.n, n != 1 { throw .invalid("n must be 1: Tide generates one choice per request", param: "n") }
        if request.logprobs == true { throw .invalid("logprobs are not supported", param: "logprobs") }
        var messages: [ChatMessage] = []
        for (index, message) in request.messages.enumerated() {
            let role: ChatRole
            switch message.role {
            case "system", "developer": role = .system
            case "user": role = .user
            case "assistant": role = .assistant
            default:
                throw .invalid("messages[\(index)].role '\(message.role)' is not supported; use system, user or assistant",
                               param: "messages[\(index)].role")
            }
            // A chat template cannot carry a NUL: say so, rather than let the message end there.
            if message.content.utf8.contains(0) {
                let field = endpoint == .chat ? "messages[\(index)].content" : "prompt"
                throw .invalid("\(field) holds a NUL character (U+0000), which a prompt cannot carry; remove it", param: field)
            }
            messages.append(ChatMessage(role, message.content))
        }
        guard let last = messages.last else { throw .invalid("messages must hold at least one message", param: "messages") }
        guard last.role == .user else {
            throw .invalid("the last message must be the user's, to be answered; it is the \(last.role.rawValue)'s",
                           param: "messages")
        }
        if endpoint == .chat, let system = configuration.systemPrompt, !system.isEmpty,
           !messages.contains(where: { $0.role == .system })
        {
            messages.insert(ChatMessage(.system, system), at: 0)
        }
        history = Array(messages.dropLast())
        question = last.content
        do {
            parameters = try request.parameters(over: configuration.parameters)
            parameters.format = format
            parameters.rawPrompt = endpoint == .text
        } catch {
            throw .invalid(error.message, param: error.field)
        }
        stream = request.stream ?? false
        includeUsage = request.streamOptions?.includeUsage ?? false
    }

    /// Refuses a request larger than the server's limits, before any of its messages is read.
    private static func checkSize(of messages: [ChatCompletionRequest.Message], within limits: ServerLimits,
                                  endpoint: CompletionEndpoint) throws(APIError)
    {
        guard messages.count <= limits.maximumMessages else {
            throw .invalid("messages holds \(messages.count) messages, over this server's limit of \(limits.maximumMessages); "
                               + "send fewer (tide serve --max-messages sets the limit)", param: "messages", code: "too_many_messages")
        }
        let characters = messages.reduce(0) { $0 + $1.content.unicodeScalars.count }
        guard characters <= limits.maximumCharacters else {
            let what = endpoint == .chat ? "the messages hold" : "the prompt holds"
            throw .invalid("\(what) \(characters) characters, over this server's limit of \(limits.maximumCharacters); "
                               + "shorten \(endpoint == .chat ? "them" : "it") (tide serve --max-characters sets the limit)",
                           param: endpoint.inputField, code: "request_too_large")
        }
    }
}
