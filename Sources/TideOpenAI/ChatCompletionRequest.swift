import TideCore

/// The body of `POST /v1/chat/completions`, as OpenAI defines it, with the sampling fields
/// llama-server adds (`top_k`, `min_p`, `repeat_penalty`, `dry_multiplier`, …): every generation
/// parameter under its field's name (``TideCore/ParameterDeclaration``). Unknown fields are
/// ignored, as OpenAI-compatible servers do; `user`, which does not change the reply, is still
/// checked for its type, and the older `functions` and `function_call` are refused with a
/// ``RequestFieldError``.
/// The tools offered (`tools`, `tool_choice`, `parallel_tool_calls`) are read by ``ToolOffer``,
/// in the body's key order.
public struct ChatCompletionRequest: Codable, Sendable, Hashable {
    /// One message of the conversation. On the wire, `content` may also be a list of parts
    /// (`{"type": "text", "text": …}`), read as their texts joined, or null or absent (read as
    /// empty: an assistant message that only calls tools may have none). It is always written as
    /// a string, which every server takes (some refuse a null).
    public struct Message: Codable, Sendable, Hashable {
        public var role: String
        public var content: String
        /// An assistant message's tool calls (`tool_calls`).
        public var toolCalls: [WireToolCall]?
        /// A `tool` message's call (`tool_call_id`): the result answers it.
        public var toolCallID: String?
        /// A thinking model's reasoning (`reasoning_content`, as llama-server and DeepSeek's API
        /// name it), apart from the answer in `content`.
        public var reasoningContent: String?

        public init(role: String, content: String, toolCalls: [WireToolCall]? = nil, toolCallID: String? = nil,
                    reasoningContent: String? = nil) {
            self.role = role
            self.content = content
            self.toolCalls = toolCalls
            self.toolCallID = toolCallID
            self.reasoningContent = reasoningContent
        }

        /// `message` on the wire.
        public init(_ message: ChatMessage) {
            self.init(role: message.role.rawValue, content: message.content,
                      toolCalls: message.toolCalls.isEmpty ? nil : message.toolCalls.map(WireToolCall.init),
                      toolCallID: message.toolCallID, reasoningContent: message.reasoning)
        }

        enum CodingKeys: String, CodingKey {
            case role, content, toolCalls = "tool_calls", toolCallID = "tool_call_id", reasoningContent = "reasoning_content"
        }

        struct Part: Decodable {
            var type: String
            var text: String?
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            role = try container.decode(String.self, forKey: .role)
            if try !container.contains(.content) || container.decodeNil(forKey: .content) {
                content = ""
            } else if let text = try container.decodeUnlessOtherType(String.self, forKey: .content) {
                content = text
            } else {
                let parts = try container.decode([Part].self, forKey: .content)
                if let other = parts.first(where: { $0.type != "text" }) {
                    throw DecodingError.dataCorruptedError(forKey: .content, in: container,
                                                           debugDescription: "content of type '\(other.type)' is not supported; only text")
                }
                content = parts.compactMap(\.text).joined()
            }
            toolCalls = try container.decodeIfPresent([WireToolCall].self, forKey: .toolCalls)
            toolCallID = try container.decodeIfPresent(String.self, forKey: .toolCallID)
            reasoningContent = try container.decodeIfPresent(String.self, forKey: .reasoningContent)
        }

    }

    /// `stream_options`: whether the last streamed chunk carries the usage.
    public struct StreamOptions: Codable, Sendable, Hashable {
        public var includeUsage: Bool?

        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }

        public init(includeUsage: Bool?) {
            self.includeUsage = includeUsage
        }
    }

    public var model: String
    public var messages: [Message]
    public var stream: Bool?
    public var streamOptions: StreamOptions?
    /// The generation parameters the request sets, in the order of their declarations (a field
    /// that is null is not set).
    public var parameters: [ParameterSetting] = []
    /// Choices asked for: replies to the same messages, each sampled on its own.
    public var n: Int?
    /// Whether log-probabilities are asked for.
    public var logprobs: Bool?
    /// How many of the likeliest tokens each token's log-probability comes with (`top_logprobs`).
    public var topLogprobs: Int?
    /// Whether the body has a field that asks for a reply format (see
    /// ``TideCore/ReplyFormat/requested(in:)``, which reads them in the body's key order).
    public var asksForFormat = false
    /// Whether the body has a field that offers tools (read by ``ToolOffer/requested(in:)``).
    public var offersTools = false

    enum CodingKeys: String, CodingKey {
        case model, messages, stream, n, logprobs
        case streamOptions = "stream_options", topLogprobs = "top_logprobs"
    }

    /// The fields that ask for a reply format.
    enum FormatKeys: String, CodingKey, CaseIterable { case responseFormat = "response_format", jsonSchema = "json_schema", grammar }

    /// OpenAI's fields that Tide reads only to check their type: they do not change the reply.
    enum CheckedKeys: String, CodingKey { case user }

    /// OpenAI's fields that Tide refuses: a reply that ignored them would not be what was asked for.
    enum RefusedKeys: String, CodingKey, CaseIterable {
        case functions, functionCall = "function_call"

        var refusal: String { "\(stringValue) is OpenAI's older way to offer functions; send tools and tool_choice instead" }
    }

    /// The fields that offer tools.
    enum ToolKeys: String, CodingKey, CaseIterable { case tools, toolChoice = "tool_choice", parallelToolCalls = "parallel_tool_calls" }

    /// A request.
    public init(model: String, messages: [Message], stream: Bool? = nil) {
        self.model = model
        self.messages = messages
        self.stream = stream
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(decoding: decoder, messages: container.decode([Message].self, forKey: .messages))
        logprobs = try container.decodeIfPresent(Bool.self, forKey: .logprobs)
        topLogprobs = try container.decodeWholeNumberIfPresent(forKey: .topLogprobs)
    }

    /// A request with `messages` and every other field read from `decoder` except `logprobs` and `top_logprobs`:
    /// what a chat-completion and a text-completion body (``TextCompletionRequest``) share.
    init(decoding decoder: any Decoder, messages: [Message]) throws {
        let refused = try decoder.container(keyedBy: RefusedKeys.self)
        for key in RefusedKeys.allCases where refused.contains(key) {
            guard try refused.decodeNil(forKey: key) else { throw RequestFieldError(field: key.stringValue, message: key.refusal) }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
        self.messages = messages
        stream = try container.decodeIfPresent(Bool.self, forKey: .stream)
        streamOptions = try container.decodeIfPresent(StreamOptions.self, forKey: .streamOptions)
        parameters = try Self.parameters(in: decoder)
        n = try container.decodeWholeNumberIfPresent(forKey: .n)
        let formats = try decoder.container(keyedBy: FormatKeys.self)
        asksForFormat = FormatKeys.allCases.contains { formats.contains($0) }
        let tools = try decoder.container(keyedBy: ToolKeys.self)
        offersTools = ToolKeys.allCases.contains { tools.contains($0) }
        let checked = try decoder.container(keyedBy: CheckedKeys.self)
        _ = try checked.decodeIfPresent(String.self, forKey: .user)
    }

    /// The generation parameters set in the body: each under its field's name or an alias (the
    /// first given, in that order), checked by its declaration; a bad value is a
    /// ``RequestFieldError`` naming the field as the body spells it.
    static func parameters(in decoder: any Decoder) throws -> [ParameterSetting] {
        let fields = try decoder.container(keyedBy: AnyCodingKey.self)
        var settings: [ParameterSetting] = []
        for declaration in GenerationParameters.declarations where declaration.request != .ownFields {
            for name in [declaration.field] + declaration.aliases {
                let value = try fields.decodeIfPresent(ParameterValue.self, forKey: AnyCodingKey(name)) ?? .null
                if value == .null { continue }
                settings.append(try ParameterSetting.requested(declaration.name, value, field: name))
                break
            }
        }
        return settings
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(model, forKey: .model)
        try container.encode(messages, forKey: .messages)
        try container.encodeIfPresent(stream, forKey: .stream)
        try container.encodeIfPresent(streamOptions, forKey: .streamOptions)
        try container.encodeIfPresent(n, forKey: .n)
        try container.encodeIfPresent(logprobs, forKey: .logprobs)
        try container.encodeIfPresent(topLogprobs, forKey: .topLogprobs)
        var fields = encoder.container(keyedBy: AnyCodingKey.self)
        for setting in parameters { try fields.encode(setting.value, forKey: AnyCodingKey(setting.declaration.field)) }
    }
}
