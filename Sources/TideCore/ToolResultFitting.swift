/// Tool results cut to the room the context has left: a result never ends the turn, however
/// large, as no other tool failure does.
extension ToolBox {
    /// `results`, the round's, each cut to at most `max-tool-result` bytes, and further — all to one
    /// byte limit, the largest that fits — when the next round's prompt (`kept`, the messages that
    /// stay in the context, then the results) would leave the model no room to answer under
    /// `parameters`, those of the next round. Each cut result says so, in the text the model
    /// sees. When nothing makes them fit (the conversation alone fills the context), the results
    /// are as short as they can be, and the next round's fitting says what does not fit.
    static func fitting(_ results: [ToolResult], after kept: [ChatMessage], parameters: GenerationParameters,
                        backend: any ChatBackend) async throws -> [ToolResult]
    {
        let room = backend.contextSize - ContextOverflowPolicy.answerReserve(parameters: parameters, contextSize: backend.contextSize)
        func cutting(to limit: Int) -> [ToolResult] {
            results.map { result in
                var fitted = result
                fitted.content = cut(result.content, to: limit, fitting: limit < parameters.maxToolResult)
                return fitted
            }
        }
        func fits(_ limit: Int) async throws -> Bool {
            let messages = kept + cutting(to: limit).map { ChatMessage(.tool, $0.content, toolCallID: $0.call.id) }
            let prompt = backend.toolCallReader?.prompt(messages, offering: parameters.offersTools ? parameters.tools : [])
                ?? messages
            do {
                return try await backend.promptTokenCount(for: prompt, rawPrompt: parameters.rawPrompt) <= room
            } catch is CancellationError {
                // The turn was stopped (Ctrl-C during a call): its next round ends at once, and reads none of them.
                return true
            }
        }
        var limit = min(parameters.maxToolResult, results.map(\.content.utf8.count).max() ?? 0)
        if try await !fits(limit) {
            // The largest limit that fits: `low` fits (or is 0), `limit` does not.
            var low = 0
            while limit - low > 1 {
                let middle = (low + limit) / 2
                if try await fits(middle) { low = middle } else { limit = middle }
            }
            limit = low
        }
        return cutting(to: limit)
    }

    /// `content` cut to `limit` bytes (at a character's end), with a note of the cut that says
    /// whether it was cut `fitting` the context; as it is when it is not longer.
    static func cut(_ content: String, to limit: Int, fitting: Bool = false) -> String {
        guard content.utf8.count > limit else { return content }
        var kept = ""
        for character in content {
            if kept.utf8.count + character.utf8.count > limit { break }
            kept.append(character)
        }
        let why = fitting ? " to fit the context" : ""
        return kept + "\n[the result was cut\(why): \(content.utf8.count) bytes, of which the first \(kept.utf8.count) are shown]"
    }
}
