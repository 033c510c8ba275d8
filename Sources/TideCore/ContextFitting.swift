extension ContextOverflowPolicy {
    /// Returns `messages` as they fit in the backend's context under this policy.
    ///
    /// The last message (the new one) and system messages are never dropped. Dropping keeps as
    /// much of the conversation as fits, found by bisection over how many of the oldest
    /// exchanges go: a few token counts, however long the conversation (counting once per
    /// dropped exchange was quadratic in its length). Shifting keeps every message: the backend
    /// holds the conversation's end (``GenerationParameters/shiftsContext``), or this refuses
    /// a backend that cannot.
    func fit(_ messages: [ChatMessage], parameters: GenerationParameters, backend: any ChatBackend)
        async throws -> [ChatMessage]
    {
        if self == .shift {
            if let reason = backend.contextShiftUnavailable {
                throw ContextShiftUnsupported(model: backend.modelDescription.name, reason: reason)
            }
            return messages
        }
        let reserve = self == .fail ? 1 : Self.answerReserve(parameters: parameters, contextSize: backend.contextSize)
        func needed(_ messages: [ChatMessage]) async throws -> Int {
            try await backend.promptTokenCount(for: messages, rawPrompt: parameters.rawPrompt) + reserve
        }
        let whole = try await needed(messages)
        if whole <= backend.contextSize { return messages }
        let exchanges = Self.exchanges(in: messages)
        guard self == .dropOldest, !exchanges.isEmpty else {
            throw ContextOverflowError(promptTokens: whole, contextSize: backend.contextSize)
        }
        func dropping(_ count: Int) -> [ChatMessage] {
            let dropped = exchanges[..<count].reduce(into: Set<Int>()) { $0.formUnion($1) }
            return messages.indices.filter { !dropped.contains($0) }.map { messages[$0] }
        }
        let shortest = dropping(exchanges.count)
        let least = try await needed(shortest)
        guard least <= backend.contextSize else {
            throw ContextOverflowError(promptTokens: least, contextSize: backend.contextSize)
        }
        // Dropping `high` exchanges fits and dropping `low` does not: narrow to the fewest that fit.
        var (low, high) = (0, exchanges.count)
        var fitting = shortest
        while high - low > 1 {
            let middle = (low + high) / 2
            let candidate = dropping(middle)
            if try await needed(candidate) <= backend.contextSize {
                (high, fitting) = (middle, candidate)
            } else {
                low = middle
            }
        }
        return fitting
    }

    /// The exchanges that may be dropped, oldest first: each non-system message before the last
    /// one, with the replies that follow it.
    /// The tokens kept free for the answer when the context is made to fit: `max-tokens`, at
    /// most a quarter of the context.
    public static func answerReserve(parameters: GenerationParameters, contextSize: Int) -> Int {
        min(parameters.maxTokens, max(1, contextSize / 4))
    }

    private static func exchanges(in messages: [ChatMessage]) -> [Range<Int>] {
        let last = messages.count - 1
        var exchanges: [Range<Int>] = []
        var index = 0
        while index < last {
            guard messages[index].role != .system else {
                index += 1
                continue
            }
            var end = index + 1
            while end < last, messages[end].role == .assistant { end += 1 }
            exchanges.append(index..<end)
            index = end
        }
        return exchanges
    }
}
