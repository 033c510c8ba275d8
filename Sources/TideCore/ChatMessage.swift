/// Who said a message in a conversation.
public enum ChatRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Instructions that frame the conversation; rendered first by chat templates.
    case system
    /// The person chatting.
    case user
    /// The model (or a fixed reply written in its place).
    case assistant
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

    /// Creates a message.
    public init(_ role: ChatRole, _ content: String, interrupted: Bool = false) {
        self.role = role
        self.content = content
        self.interrupted = interrupted
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
