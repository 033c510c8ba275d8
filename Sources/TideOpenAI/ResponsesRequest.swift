import TideCore
import TideFormat

/// The body of `POST /v1/responses` (OpenAI's Responses API), read from the body's JSON in its key
/// order into the chat-completion request Tide answers (``chat``), the tools it offers
/// (``tools``) and its reply format (``format``): one conversation path for every API. The
/// conversation is `instructions` (a system message), then the input items: messages
/// (`input_text`, an assistant's `output_text`), `function_call` and `function_call_output`, and
/// `reasoning` (read as the next assistant message's). Every field is honoured or refused: a field
/// the API does not define, or one Tide cannot honour (hosted tools, `background`,
/// `conversation`, `prompt`, images and files), is a ``RequestFieldError`` naming it. Besides
/// OpenAI's fields, the body may set any of Tide's generation parameters by its request name
/// (`top_k`, `min_p`, `seed`, …).
public struct ResponsesRequest: Sendable {
    /// The request as a chat completion: `instructions`, the conversation it continues, its input.
    public var chat: ChatCompletionRequest
    /// The tools offered; `nil` when the request has none.
    public var tools: ToolOffer?
    /// The reply format `text.format` asks for; `nil` for free text.
    public var format: ReplyFormat?
    /// The stored response whose conversation this one continues.
    public var previousResponseID: String?
    /// Whether the response is kept, for a later request to continue and for `GET` (true unless the request says).
    public var store = true
    /// `instructions`, as given (not carried on to a response that continues this one).
    public var instructions: String?
    /// Whether the reasoning comes back summarised too (`reasoning.summary`), besides its text.
    public var summarisesReasoning = false
    /// `metadata`, given back with the response.
    public var metadata: JSONValue = .fields([:])
    /// `text.format` as the request gave it, given back with the response (`{"type": "text"}` by default).
    public var textFormat: JSONValue = .fields(["type": .string("text")])

    /// OpenAI's fields Tide reads itself; the others a request may hold are generation parameters.
    static let ownFields: Set<String> = [
        "model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "max_output_tokens", "text", "reasoning",
        "store", "previous_response_id", "include", "stream", "metadata", "user", "safety_identifier", "prompt_cache_key", "truncation",
        "service_tier",
    ]

    /// OpenAI's fields Tide refuses, with why.
    static let refusedFields: [String: String] = [
        "background": "background runs a response in the background on OpenAI's servers; this server answers while the client waits: leave it out",
        "conversation": "conversation names a conversation OpenAI's servers keep; continue a response with previous_response_id instead",
        "prompt": "prompt names a prompt template kept on OpenAI's servers; send the instructions and input themselves",
        "max_tool_calls": "max_tool_calls limits hosted tools, which this server does not have; leave it out",
        "top_logprobs": "top_logprobs is not given by this server's Responses API; ask /v1/chat/completions for log-probabilities",
        "stream_options": "stream_options is not taken by this server's Responses API; leave it out",
        "context_management": "context_management compacts a conversation on OpenAI's servers; send the conversation as you want it read",
    ]

    /// The conversation a stored response continuing this one reads first: the earlier
    /// conversation and the input, without `instructions`.
    public var conversation: [ChatMessage] = []

    /// The id of the response `body` continues (`previous_response_id`), read before the rest:
    /// its conversation comes before the body's input.
    public static func previousResponseID(in body: JSONValue) throws(RequestFieldError) -> String? {
        guard case .object(let object) = body else { return nil }
        switch object["previous_response_id"] {
        case nil, .null?: return nil
        case .string(let id)?: return id
        default: throw RequestFieldError(field: "previous_response_id", message: "previous_response_id must be a response's id (a string)")
        }
    }

    /// Reads `body`, whose input continues the conversation `earlier` (a stored response's).
    public init(parsing body: JSONValue, after earlier: [ChatMessage] = []) throws(RequestFieldError) {
        guard case .object(let object) = body else {
            throw RequestFieldError(field: "", message: "the body must be a JSON object with model and input")
        }
        for member in object.members {
            if let reason = Self.refusedFields[member.key] {
                guard member.value == .null || member.value == .bool(false) else { throw RequestFieldError(field: member.key, message: reason) }
                continue
            }
            guard Self.ownFields.contains(member.key) || Self.requestParameter(member.key) != nil else {
                throw RequestFieldError(field: member.key, message: "Unknown parameter: '\(member.key)'. This server's Responses API takes "
                                            + "\(Self.ownFields.sorted().joined(separator: ", ")) and Tide's generation parameters (docs/sampling.md)")
            }
        }
        guard case .string(let model)? = object["model"] else {
            throw RequestFieldError(field: "model", message: "model is missing: name the model (any name is this server's)")
        }
        var messages = earlier
        switch object["instructions"] {
        case nil, .null?: break
        case .string(let text)?: instructions = text
        default: throw RequestFieldError(field: "instructions", message: "instructions must be a string")
        }
        switch object["input"] {
        case .string(let text)?: messages.append(ChatMessage(.user, text))
        case .array(let items)?:
            guard items.count <= Self.maximumItems else {
                throw RequestFieldError(field: "input", message: "input holds \(items.count) items, over the \(Self.maximumItems) a request may send")
            }
            var reasoning: String?
            for (index, item) in items.enumerated() {
                try Self.read(item, field: "input[\(index)]", into: &messages, reasoning: &reasoning)
            }
        default: throw RequestFieldError(field: "input", message: "input is missing: send a string or a list of items")
        }
        conversation = messages
        let system = instructions.map { [ChatMessage(.system, $0)] } ?? []
        chat = ChatCompletionRequest(model: model, messages: (system + messages).map(ChatCompletionRequest.Message.init))
        chat.stream = try Self.flag(object["stream"], field: "stream")
        chat.parameters = try Self.parameters(in: object)
        tools = try Self.tools(in: object)
        chat.offersTools = tools != nil
        format = try Self.format(in: object)
        if case .object(let text)? = object["text"], let given = text["format"], given != .null { textFormat = given }
        previousResponseID = try Self.previousResponseID(in: body)
        store = try Self.flag(object["store"], field: "store") ?? true
        try Self.check(object)
        if case .object? = object["metadata"], let given = object["metadata"] { metadata = given }
        if case .object(let reasoning)? = object["reasoning"], let summary = reasoning["summary"] ?? reasoning["generate_summary"] {
            summarisesReasoning = summary != .null
        }
    }

    /// The most input items one request may hold before they are read (the server's own limit,
    /// `--max-messages`, counts the messages they make).
    public static let maximumItems = 100_000

    /// The generation parameter a body's `field` sets; `nil` for one that is not. `max_tokens` is
    /// `max_output_tokens` here, the reasoning budget `reasoning`, and `tool_choice`,
    /// `parallel_tool_calls` and `logprobs` are read apart.
    static func requestParameter(_ field: String) -> ParameterDeclaration? {
        GenerationParameters.declarations.first {
            $0.field == field && $0.request != .ownFields && !["max-tokens", "reasoning-budget"].contains($0.name)
        }
    }

    private static func flag(_ value: JSONValue?, field: String) throws(RequestFieldError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw RequestFieldError(field: field, message: "\(field) must be true or false")
        }
    }
}
