/// A whole reply gathered from a stream, for callers that do not display text as it arrives.
///
/// ```swift
/// let reply = try await session.reply(to: "Hi").collect()
/// print(reply.text, reply.summary?.stopReason as Any)
/// ```
public struct CollectedReply: Sendable {
    /// The text events, in order.
    public var texts: [String] = []
    /// The reasoning events, in order.
    public var reasoning: [String] = []
    /// The hook failures reported along the way.
    public var failures: [HookFailure] = []
    /// What rewinds took back, in order.
    public var rewinds: [TakenBack] = []
    /// The tools the model called, and what they gave, in order.
    public var toolCalls: [ToolCall] = []
    public var toolResults: [ToolResult] = []
    /// The final summary; `nil` only if the stream ended without one (it was cancelled).
    public var summary: ReplySummary?

    /// The shown text.
    public var text: String { texts.joined() }
}

extension AsyncThrowingStream where Element == ReplyEvent {
    /// Reads the stream to its end.
    public func collect() async throws -> CollectedReply {
        var reply = CollectedReply()
        for try await event in self {
            switch event {
            case .text(let text): reply.texts.append(text)
            case .reasoning(let text): reply.reasoning.append(text)
            case .hookFailure(let failure): reply.failures.append(failure)
            case .rewound(let taken): reply.rewinds.append(taken)
            case .logprobs, .promptLogprobs: break  // the summary has them all
            case .toolCallText: break  // the calls come whole
            case .toolCall(let call): reply.toolCalls.append(call)
            case .toolResult(let result): reply.toolResults.append(result)
            case .finished(let summary): reply.summary = summary
            }
        }
        return reply
    }
}
