/// Who said a message in a conversation.
public enum ChatRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Instructions that frame the conversation; rendered first by chat templates.
    case system
    /// The person chatting.
    case user
    /// The model (or a fixed reply written in its place).
    case assistant
    /// What a tool call gave (``ChatMessage/toolCallID`` says which call).
    case tool
}

/// One message of a conversation, as chat templates see it.
///
/// ```swift
/// let question = ChatMessage(.user, "What is the capital of France?")
/// ```
public struct ChatMessage: Sendable, Hashable, Codable {
    /// Who said it.
    public var role: ChatRole
    /// What was said.
    public var content: String
    /// True for an assistant reply that was cut short (cancelled, or failed mid-stream):
    /// the text is what had been produced when it stopped.
    public var interrupted: Bool
    /// The tools an assistant message calls (its ``content`` is then what the model said before
    /// the calls, often nothing).
    public var toolCalls: [ToolCall]
    /// For a ``ChatRole/tool`` message: the call it answers.
    public var toolCallID: String?
    /// For an assistant message of a thinking model: its reasoning (tags left out), kept apart
    /// from ``content``; a template writes it back where it keeps reasoning (Qwen 3, in the turn
    /// still being answered), and `tide serve` returns it as `reasoning_content`.
    public var reasoning: String?
    /// For a system message a tool format writes for a family whose template lists the tools
    /// apart from the text (Phi-4-mini's `<|tool|>…<|/tool|>`): the list, as the template writes
    /// it. Only prompts carry it; it is not saved with the message.
    public var offeredTools: String? = nil

    /// Creates a message.
    public init(_ role: ChatRole, _ content: String, interrupted: Bool = false, toolCalls: [ToolCall] = [],
                toolCallID: String? = nil, reasoning: String? = nil) {
        self.role = role
        self.content = content
        self.interrupted = interrupted
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
        self.reasoning = reasoning
    }

    private enum CodingKeys: String, CodingKey {
        case role, content, interrupted, toolCalls, toolCallID, reasoning
    }

    /// Reads a message; messages written before tools existed have neither tool field, nor
    /// those before reasoning its reasoning.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(ChatRole.self, forKey: .role)
        content = try container.decode(String.self, forKey: .content)
        interrupted = try container.decodeIfPresent(Bool.self, forKey: .interrupted) ?? false
        toolCalls = try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
        toolCallID = try container.decodeIfPresent(String.self, forKey: .toolCallID)
        reasoning = try container.decodeIfPresent(String.self, forKey: .reasoning)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(content, forKey: .content)
        try container.encode(interrupted, forKey: .interrupted)
        if !toolCalls.isEmpty { try container.encode(toolCalls, forKey: .toolCalls) }
        try container.encodeIfPresent(toolCallID, forKey: .toolCallID)
        try container.encodeIfPresent(reasoning, forKey: .reasoning)
    }
}

extension Array where Element == ChatMessage {
    /// These messages with `prompt` as their system prompt: the first message replaced if it is
    /// one, else `prompt` put in front; an empty `prompt` removes it.
    public func replacingSystemPrompt(_ prompt: String) -> [ChatMessage] {
        var messages = self
        if messages.first?.role == .system { messages.removeFirst() }
        if !prompt.isEmpty { messages.insert(ChatMessage(.system, prompt), at: 0) }
        return messages
    }
}

extension Array where Element == ChatMessage {
    /// Every field of the messages, each text preceded by its length, in one byte string: equal
    /// for equal messages, and for no two that differ.
    public var fingerprint: [UInt8] {
        var bytes: [UInt8] = []
        func add(count: Int) {
            Swift.withUnsafeBytes(of: UInt64(count).littleEndian) { bytes += $0 }
        }
        func add(_ text: String?) {
            guard let text else { return bytes.append(0) }
            bytes.append(1)
            add(count: text.utf8.count)
            bytes += text.utf8
        }
        for message in self {
            add(message.role.rawValue)
            add(message.content)
            bytes.append(message.interrupted ? 1 : 0)
            add(count: message.toolCalls.count)
            for call in message.toolCalls {
                add(call.id)
                add(call.name)
                add(call.arguments)
                add(call.written)
            }
            add(message.toolCallID)
            add(message.reasoning)
            add(message.offeredTools)
        }
        return bytes
    }
}
