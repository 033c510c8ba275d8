import TideCore
import TideFormat
import TideOpenAI

/// The body of `POST /v1/messages` (Anthropic's Messages API) and of its
/// `/v1/messages/count_tokens`, read from the body's JSON in its key order into the chat-completion
/// request Tide answers (``chat``) and the tools it offers (``tools``): one conversation path for
/// both APIs. Every field is honoured or refused: a field Anthropic's API does not define, or one
/// Tide cannot honour (images, documents, server tools, `container`, `mcp_servers`), is a
/// ``RequestFieldError`` naming it; a `tool_result` must answer a `tool_use` of the assistant
/// message just before it. Besides Anthropic's fields, the body may set any of Tide's generation
/// parameters by its request name (`min_p`, `seed`, `repeat_penalty`, …), as llama-server's does.
public struct MessagesRequest: Sendable {
    /// What the request is for: a reply, or only counting its prompt's tokens (which takes no
    /// `max_tokens` and no sampling fields).
    public enum Purpose: Sendable {
        case reply, count
    }

    /// The request as a chat completion: `system` first, then the messages (a `tool_result`
    /// block as a `tool` message), with the parameters (`max_tokens`, `stop_sequences` as `stop`,
    /// `thinking`'s budget as the reasoning budget).
    public var chat: ChatCompletionRequest
    /// The tools offered (`tools`, `tool_choice`); `nil` when the request has neither.
    public var tools: ToolOffer?

    /// Anthropic's own fields that Tide reads itself; the others that a request may hold are
    /// generation parameters.
    static let ownFields: Set<String> = [
        "model", "messages", "system", "max_tokens", "stop_sequences", "stream", "tools", "tool_choice", "thinking", "metadata",
    ]

    /// Anthropic's fields Tide refuses, with why: a reply that ignored them would not be what was asked for.
    static let refusedFields: [String: String] = [
        "container": "container runs Anthropic's code-execution tool, which this server does not have; leave it out",
        "mcp_servers": "mcp_servers connects Anthropic's servers to MCP servers; give this server its tools with tide serve --mcp instead",
        "context_management": "context_management edits the conversation on Anthropic's servers; send the conversation as you want it read",
        "service_tier": "service_tier chooses among Anthropic's capacity; this server has one: leave it out",
        "citations": "citations need documents, which this server does not read; leave it out",
    ]

    /// Reads `body` for `purpose`.
    public init(parsing body: JSONValue, for purpose: Purpose) throws(RequestFieldError) {
        guard case .object(let object) = body else {
            throw RequestFieldError(field: "", message: "the body must be a JSON object with model, messages and max_tokens")
        }
        for member in object.members {
            try Self.check(field: member.key, for: purpose)
        }
        guard case .string(let model)? = object["model"] else {
            throw RequestFieldError(field: "model", message: "model: Field required (a string naming the model)")
        }
        var messages: [ChatMessage] = []
        if let system = object["system"], system != .null {
            messages.append(ChatMessage(.system, try Self.text(of: system, field: "system")))
        }
        guard case .array(let wire)? = object["messages"] else {
            throw RequestFieldError(field: "messages", message: "messages: Field required (a list of {role, content})")
        }
        guard wire.count <= Self.maximumMessages else {
            throw RequestFieldError(field: "messages", message: "messages holds \(wire.count) messages, over the \(Self.maximumMessages) "
                                        + "a request may send; send fewer")
        }
        for (index, message) in wire.enumerated() {
            messages += try Self.messages(message, field: "messages[\(index)]", after: messages)
        }
        chat = ChatCompletionRequest(model: model, messages: messages.map(ChatCompletionRequest.Message.init))
        chat.stream = try Self.flag(object["stream"], field: "stream")
        chat.parameters = try Self.parameters(in: object, for: purpose)
        tools = try Self.tools(in: object)
        chat.offersTools = tools != nil
        if let metadata = object["metadata"], metadata != .null { try Self.checkMetadata(metadata) }
    }

    /// The most messages one request may hold before they are read: those the server's own
    /// limit (`--max-messages`) counts come after, as a chat completion's.
    public static let maximumMessages = 100_000

    private static func check(field: String, for purpose: Purpose) throws(RequestFieldError) {
        if let reason = refusedFields[field] { throw RequestFieldError(field: field, message: reason) }
        if field == "thread" {
            throw RequestFieldError(field: field, message: "thread continues a conversation Anthropic's servers keep; this server keeps "
                                        + "none: send the whole conversation in messages", code: "thread_unsupported_request")
        }
        switch purpose {
        case .count:
            let counted: Set = ["model", "messages", "system", "tools", "tool_choice", "thinking"]
            guard counted.contains(field) else {
                throw RequestFieldError(field: field, message: "\(field): Extra inputs are not permitted: count_tokens takes model, messages, "
                                            + "system, tools, tool_choice and thinking")
            }
        case .reply:
            guard ownFields.contains(field) || requestParameter(field) != nil else {
                throw RequestFieldError(field: field, message: "\(field): Extra inputs are not permitted: this server's Messages API takes "
                                            + "\(ownFields.sorted().joined(separator: ", ")) and the generation parameters of docs/sampling.md")
            }
        }
    }

    /// The generation parameter a body's `field` sets; `nil` for a field that is not one. Tide's
    /// `stop` is `stop_sequences` here, its reasoning budget `thinking`, and `tool_choice`,
    /// `parallel_tool_calls` and `logprobs` have no place.
    static func requestParameter(_ field: String) -> ParameterDeclaration? {
        GenerationParameters.declarations.first {
            $0.field == field && $0.request != .ownFields && !["stop", "reasoning-budget"].contains($0.name)
        }
    }

    /// The generation parameters the body sets: `max_tokens` (required for a reply), `stop_sequences`,
    /// `thinking`'s budget, and each of Tide's parameters by its field's name.
    private static func parameters(in object: JSONObject, for purpose: Purpose) throws(RequestFieldError) -> [ParameterSetting] {
        var settings: [ParameterSetting] = []
        func set(_ name: String, _ value: ParameterValue, field: String) throws(RequestFieldError) {
            settings.append(try ParameterSetting.requested(name, value, field: field))
        }
        if purpose == .reply, object["max_tokens"] == nil || object["max_tokens"] == .null {
            throw RequestFieldError(field: "max_tokens", message: "max_tokens: Field required (the most tokens the reply may have)")
        }
        for member in object.distinctMembers where member.value != .null {
            if let declaration = requestParameter(member.key) {
                try set(declaration.name, ParameterValue(member.value), field: member.key)
            }
        }
        if let stops = object["stop_sequences"], stops != .null {
            guard case .array = stops else {
                throw RequestFieldError(field: "stop_sequences", message: "stop_sequences must be a list of strings")
            }
            try set("stop", ParameterValue(stops), field: "stop_sequences")
        }
        if let thinking = object["thinking"], thinking != .null {
            try set("reasoning-budget", .number(Double(try budget(of: thinking))), field: "thinking.budget_tokens")
        }
        return settings
    }

    /// `thinking`'s reasoning budget: `budget_tokens` when enabled, 0 when disabled (the
    /// reasoning closed at once), -1 (no limit) when adaptive.
    private static func budget(of thinking: JSONValue) throws(RequestFieldError) -> Int {
        let usage = #"use {"type": "enabled", "budget_tokens": N}, {"type": "adaptive"} or {"type": "disabled"}"#
        guard case .object(let fields) = thinking, case .string(let type)? = fields["type"] else {
            throw RequestFieldError(field: "thinking", message: "thinking must be an object with a type; \(usage)")
        }
        switch type {
        case "enabled":
            guard case .number(let budget)? = fields["budget_tokens"], let whole = Int(exactly: budget), whole >= 0 else {
                throw RequestFieldError(field: "thinking.budget_tokens", message: "thinking.budget_tokens must be a whole number ≥ 0")
            }
            return whole
        case "disabled": return 0
        case "adaptive": return -1
        default: throw RequestFieldError(field: "thinking.type", message: "thinking.type '\(type)' is not one Tide knows; \(usage)")
        }
    }

    private static func flag(_ value: JSONValue?, field: String) throws(RequestFieldError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw RequestFieldError(field: field, message: "\(field) must be true or false")
        }
    }

    private static func checkMetadata(_ metadata: JSONValue) throws(RequestFieldError) {
        guard case .object(let fields) = metadata else {
            throw RequestFieldError(field: "metadata", message: "metadata must be an object (with user_id)")
        }
        for member in fields.members {
            guard member.key == "user_id" else {
                throw RequestFieldError(field: "metadata.\(member.key)", message: "metadata.\(member.key): Extra inputs are not permitted; "
                                            + "metadata takes user_id")
            }
            switch member.value {
            case .null, .string: break
            default: throw RequestFieldError(field: "metadata.user_id", message: "metadata.user_id must be a string")
            }
        }
    }
}
