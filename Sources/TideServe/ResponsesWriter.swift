import Hummingbird
import Logging
import TideCore
import TideFormat
import TideOpenAI

/// Turns one reply's events into the Responses API's wire format: one response, or its stream of
/// typed events (``TideOpenAI/ResponsesStream``); keeps the response when asked.
struct ResponsesWriter: Sendable {
    let reply: ResponsesReply
    let job: CompletionJob
    /// Where finished replies are counted, when the server keeps metrics.
    let metrics: ServerMetrics?
    /// Where the response is kept; `nil` when the request says `store: false`.
    let store: (any ResponseStore)?

    /// Reads the whole reply into one response.
    func whole(_ run: CompletionRun, logger: Logger) async throws -> Response {
        let summary = try await ReplyWriter.summary(of: run)
        record(summary, of: run, logger: logger)
        try ReplyWriter.checkCalls(summary)
        let response = reply.response(of: summary)
        keep(response, summary: summary)
        return Response.json(response)
    }

    /// Streams the reply: its text and reasoning as they come, the calls at the end (``NamedEvents``).
    func stream(_ run: CompletionRun, into writer: inout any ResponseBodyWriter, logger: Logger, shutdown: ShutdownCut) async {
        var stream = ResponsesStream(reply)
        await NamedEvents.stream(run, through: &stream, into: &writer, id: reply.id, logger: logger, shutdown: shutdown) { summary in
            record(summary, of: run, logger: logger)
        } ended: { summary, stream in
            // The calls streamed as they were written are named as the client saw them.
            var named = summary
            for (index, id) in stream.streamedCallIDs where named.toolCalls.indices.contains(index) { named.toolCalls[index].id = id }
            keep(stream.response(of: summary), summary: named)
        }
    }

    private func record(_ summary: ReplySummary, of run: CompletionRun, logger: Logger) {
        ReplyWriter.record(summary, of: run, reply: reply.id, job: job, metrics: metrics, logger: logger)
    }

    /// Keeps `response`, which `summary` ends, with the conversation a response continuing it reads.
    private func keep(_ response: JSONValue, summary: ReplySummary) {
        guard let store, summary.stopReason != .cancelled else { return }
        let answer = ChatMessage(.assistant, summary.storedText, toolCalls: summary.toolCalls,
                                 reasoning: summary.reasoning.isEmpty ? nil : summary.reasoning)
        store.save(StoredResponse(id: reply.id, conversation: reply.conversation + [answer], body: response.text))
    }
}
