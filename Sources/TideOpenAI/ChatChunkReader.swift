import Foundation
import TideCore

/// Reads Chat Completions' stream: each chunk's first choice (its content, `reasoning_content`
/// and `tool_calls` pieces; a finish reason, or `[DONE]`, ends it). Servers differ in the rest of
/// the envelope (`id`, `created`, `model`, `usage`), which is not read, so that one that leaves
/// a field out still streams.
public struct ChatChunkReader: StreamedReplyReader {
    /// A reader.
    public init() {}

    public mutating func read(_ event: ServerSentEvent) throws(StreamedError) -> [StreamedPiece] {
        if event.data == ServerSentEvent.doneMarker { return [.finished] }
        // Every piece is a chunk; only what is not one is tried as an error report.
        let data = Data(event.data.utf8)
        let decoder = JSONDecoder()
        guard let parsed = try? decoder.decode(Chunk.self, from: data) else {
            if let error = try? decoder.decode(APIErrorBody.self, from: data) { throw .server(error.error.message) }
            throw .malformed("not a chat-completion chunk: \(event.data.prefix(120))")
        }
        guard let choice = parsed.choices.first else { return [] }
        var pieces: [StreamedPiece] = []
        if let thought = choice.delta?.reasoningContent, !thought.isEmpty { pieces.append(.reasoning(thought)) }
        if let content = choice.delta?.content, !content.isEmpty { pieces.append(.text(content)) }
        pieces += (choice.delta?.toolCalls ?? []).map(StreamedPiece.toolCall)
        if choice.finishReason != nil { pieces.append(.finished) }
        return pieces
    }

    /// What is read of a chunk: the first choice's new text, tool-call pieces and finish reason.
    private struct Chunk: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable {
                var content: String?
                var toolCalls: [WireToolCallDelta]?
                /// A thinking model's reasoning, as llama-server, vLLM and DeepSeek's API stream it.
                var reasoningContent: String?

                enum CodingKeys: String, CodingKey { case content, toolCalls = "tool_calls", reasoningContent = "reasoning_content" }
            }

            var delta: Delta?
            var finishReason: String?

            enum CodingKeys: String, CodingKey {
                case delta
                case finishReason = "finish_reason"
            }
        }

        var choices: [Choice]
    }
}
