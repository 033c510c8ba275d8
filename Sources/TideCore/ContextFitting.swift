extension ContextOverflowPolicy {
    /// Returns `messages` as they fit in the backend's context under this policy.
    ///
    /// The last message (the new one) and system messages are never dropped.
    func fit(_ messages: [ChatMessage], parameters: GenerationParameters, backend: any ChatBackend)
        async throws -> [ChatMessage]
    {
        var messages = messages
        let reserve = self == .fail ? 1 : min(parameters.maxTokens, max(1, backend.contextSize / 4))
        while true {
            let needed = try await backend.promptTokenCount(for: messages) + reserve
            if needed <= backend.contextSize { return messages }
            guard self == .dropOldest, let oldest = Self.oldestExchange(in: messages) else {
                throw ContextOverflowError(promptTokens: needed, contextSize: backend.contextSize)
            }
            messages.removeSubrange(oldest)
        }
    }

    /// The first user message before the last one, with the replies that follow it.
    private static func oldestExchange(in messages: [ChatMessage]) -> Range<Int>? {
        let last = messages.count - 1
        guard let start = messages.indices.first(where: { $0 < last && messages[$0].role != .system }) else {
            return nil
        }
        var end = start + 1
        while end < last, messages[end].role == .assistant { end += 1 }
        return start..<end
    }
}
