import Foundation
import TideCore
import TideFormat
import TideOpenAI

/// Which endpoint a request came to: `/v1/chat/completions` (messages through the chat template),
/// `/v1/completions` (a prompt continued as plain text), Anthropic's `/v1/messages` or OpenAI's
/// `/v1/responses` (each read into a chat completion's). It decides the request's field names in errors and the shape
/// of the reply.
enum CompletionEndpoint: Sendable {
    case chat, text, messages, responses

    /// The endpoint's path.
    var path: String {
        switch self {
        case .chat: "/v1/chat/completions"
        case .text: "/v1/completions"
        case .messages: "/v1/messages"
        case .responses: "/v1/responses"
        }
    }

    /// The request field that holds what the model is given.
    var inputField: String {
        switch self {
        case .text: "prompt"
        case .responses: "input"
        default: "messages"
        }
    }
}

/// A completion request checked and read into Tide's terms: the conversation before the message
/// to answer, that message (for a text completion, the prompt alone; `nil` when the conversation
/// ends with tool results, which are answered), and the parameters, with the tools the request offers.
struct CompletionJob: Sendable {
    var endpoint: CompletionEndpoint
    var history: [ChatMessage]
    var question: String?
    var parameters: GenerationParameters
    var stream: Bool
    /// The replies asked for (`n`), each a choice of its own on a sequence of its own.
    var choices = 1
    var includeUsage: Bool
    /// Text the reply repeats before its own (a text completion's prompt, when it asks for `echo`).
    var echo = ""
    /// When the request arrived: its client's wait counts from there.
    var arrived = ContinuousClock.now

    /// The whole conversation the reply answers.
    var messages: [ChatMessage] { history + (question.map { [ChatMessage(.user, $0)] } ?? []) }

    /// Reads a text-completion `request`, whose reply format is `format`, over the server's
    /// defaults: its prompt is continued as plain text, with no system prompt.
    init(_ request: TextCompletionRequest, format: ReplyFormat?, configuration: ServeConfiguration, sequences: Int) throws(APIError) {
        guard !request.prompt.isEmpty else { throw .invalid("prompt is empty; send the text to continue", param: "prompt") }
        if request.chat.offersTools {
            throw .invalid("tools are offered in chat completions only (/v1/chat/completions): a plain-text prompt has no place "
                               + "for them; leave out tools and tool_choice", param: "tools")
        }
        try self.init(request.chat, format: format, tools: nil, configuration: configuration, sequences: sequences, endpoint: .text)
        if let count = request.logprobs { parameters.logprobs = try Self.checkLogprobs(count, field: "logprobs") }
        if request.echo {
            echo = request.prompt
            parameters.scoresPrompt = parameters.logprobs != nil
        }
    }

    /// Reads `request`, whose reply format is `format` and whose tools are `tools`, over the
    /// server's defaults, for a server of `sequences` sequences; anything Tide cannot do is a 400
    /// (or a 404 for another model's name) naming the field.
    init(_ request: ChatCompletionRequest, format: ReplyFormat?, tools: ToolOffer?, configuration: ServeConfiguration,
         sequences: Int, endpoint: CompletionEndpoint = .chat) throws(APIError)
    {
        self.endpoint = endpoint
        try Self.checkSize(of: request.messages, within: configuration.serverLimits, endpoint: endpoint)
        if let n = request.n { choices = try Self.checkChoices(n, sequences: sequences) }
        var messages: [ChatMessage] = []
        for (index, message) in request.messages.enumerated() {
            // A chat template cannot carry a NUL: say so, rather than let the message end there.
            if message.content.utf8.contains(0) {
                let field = endpoint == .text ? "prompt" : "messages[\(index)].content"
                throw .invalid("\(field) holds a NUL character (U+0000), which a prompt cannot carry; remove it", param: field)
            }
            messages.append(try Self.message(message, at: index, after: messages))
        }
        guard let last = messages.last else { throw .invalid("messages must hold at least one message", param: "messages") }
        guard last.role == .user || last.role == .tool else {
            throw .invalid("the last message must be the user's, or the results of the calls before it, to be answered; "
                               + "it is the \(last.role.rawValue)'s", param: "messages")
        }
        if endpoint != .text, let system = configuration.systemPrompt, !system.isEmpty,
           !messages.contains(where: { $0.role == .system })
        {
            messages.insert(ChatMessage(.system, system), at: 0)
        }
        if last.role == .user {
            history = Array(messages.dropLast())
            question = last.content
        } else {
            history = messages
            question = nil
        }
        do {
            parameters = try request.parameters(over: configuration.parameters)
            // Log-probabilities are each request's to ask for (a server's default would cost every reply).
            parameters.logprobs = nil
            parameters.format = format
            parameters.rawPrompt = endpoint == .text
        } catch {
            throw .invalid(error.message, param: error.field)
        }
        if let tools {
            parameters.tools = tools.tools
            parameters.toolChoice = tools.choice
            parameters.parallelToolCalls = tools.parallel
            do {
                try ToolsUnavailable.checkFormat(parameters)
            } catch {
                throw .invalid(error.description, param: "tool_choice")
            }
        }
        if request.topLogprobs != nil, request.logprobs != true {
            throw .invalid("top_logprobs needs logprobs: true; send both, or leave out top_logprobs", param: "top_logprobs")
        }
        if let wanted = request.logprobs { parameters.logprobs = wanted ? try Self.checkLogprobs(request.topLogprobs ?? 0, field: "top_logprobs") : nil }
        stream = request.stream ?? false
        includeUsage = request.streamOptions?.includeUsage ?? false
    }

    /// The most choices one request may ask for (`n`).
    static let maximumChoices = 16

    /// `n`, the choices asked for, checked: each takes a sequence of its own, all at once.
    private static func checkChoices(_ n: Int, sequences: Int) throws(APIError) -> Int {
        guard (1...maximumChoices).contains(n) else {
            throw .invalid("n must be a whole number from 1 to \(maximumChoices), not \(n)", param: "n")
        }
        guard n <= sequences else {
            throw .invalid("n is \(n), but this server decodes \(sequences) sequences at once and each choice takes one; "
                               + "ask for at most \(sequences) (tide serve --parallel sets how many)", param: "n")
        }
        return n
    }

    /// `count`, the alternatives asked for with each token's log-probability in `field`, checked.
    private static func checkLogprobs(_ count: Int, field: String) throws(APIError) -> Int {
        let limit = GenerationParameters.maximumLogprobs
        guard (0...limit).contains(count) else {
            throw .invalid("\(field) must be a whole number from 0 to \(limit), not \(count)", param: field)
        }
        return count
    }

    /// The request's message number `index` in Tide's terms, after `earlier`: a tool result must
    /// answer a call of the assistant message before it, and a call's arguments must be a JSON object.
    private static func message(_ message: ChatCompletionRequest.Message, at index: Int, after earlier: [ChatMessage])
        throws(APIError) -> ChatMessage
    {
        let field = "messages[\(index)]"
        switch message.role {
        case "system", "developer": return ChatMessage(.system, message.content)
        case "user": return ChatMessage(.user, message.content)
        case "assistant":
            var calls: [ToolCall] = []
            for (number, wire) in (message.toolCalls ?? []).enumerated() {
                guard case .object? = try? JSONValue(parsing: wire.function.arguments) else {
                    throw .invalid("\(field).tool_calls[\(number)].function.arguments must be a JSON object's text, not "
                                       + wire.function.arguments.debugDescription.prefix(80), param: "\(field).tool_calls[\(number)].function.arguments")
                }
                calls.append(wire.call)
            }
            return ChatMessage(.assistant, message.content, toolCalls: calls)
        case "tool":
            guard let id = message.toolCallID else {
                throw .invalid("\(field).tool_call_id is missing: a tool message answers a call; give the call's id", param: "\(field).tool_call_id")
            }
            let calls = earlier.last { $0.role == .assistant }?.toolCalls ?? []
            guard earlier.last?.role == .tool || earlier.last?.toolCalls.isEmpty == false, calls.contains(where: { $0.id == id }) else {
                throw .invalid("\(field) answers the call \(id), but the assistant message before it made no call with that id",
                               param: "\(field).tool_call_id")
            }
            return ChatMessage(.tool, message.content, toolCallID: id)
        default:
            throw .invalid("\(field).role '\(message.role)' is not supported; use system, user, assistant or tool", param: "\(field).role")
        }
    }

    /// Refuses a request larger than the server's limits, before any of its messages is read.
    private static func checkSize(of messages: [ChatCompletionRequest.Message], within limits: ServerLimits,
                                  endpoint: CompletionEndpoint) throws(APIError)
    {
        guard messages.count <= limits.maximumMessages else {
            throw .invalid("messages holds \(messages.count) messages, over this server's limit of \(limits.maximumMessages); "
                               + "send fewer (tide serve --max-messages sets the limit)", param: "messages", code: "too_many_messages")
        }
        // Every text a message carries counts: its content, its reasoning, its calls' names and arguments.
        let characters = messages.reduce(0) { total, message in
            total + message.content.unicodeScalars.count + (message.reasoningContent?.unicodeScalars.count ?? 0)
                + (message.toolCalls ?? []).reduce(0) { $0 + $1.function.name.unicodeScalars.count + $1.function.arguments.unicodeScalars.count }
        }
        guard characters <= limits.maximumCharacters else {
            let what = endpoint == .text ? "the prompt holds" : "the messages hold"
            throw .invalid("\(what) \(characters) characters, over this server's limit of \(limits.maximumCharacters); "
                               + "shorten \(endpoint == .text ? "it" : "them") (tide serve --max-characters sets the limit)",
                           param: endpoint.inputField, code: "request_too_large")
        }
    }
}
