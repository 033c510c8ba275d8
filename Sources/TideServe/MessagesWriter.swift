import Hummingbird
import Logging
import TideAnthropic
import TideCore

/// Turns one reply's events into the Messages API's wire format: one message, or its stream of
/// named server-sent events (``TideAnthropic/MessagesStream``).
struct MessagesWriter: Sendable {
    let model: String
    let job: CompletionJob
    /// Where finished replies are counted, when the server keeps metrics.
    let metrics: ServerMetrics?
    let id = ToolCall.freshID("msg")

    /// Reads the whole reply into one message.
    func whole(_ run: CompletionRun, logger: Logger) async throws -> Response {
        let summary = try await ReplyWriter.summary(of: run)
        record(summary, of: run, logger: logger)
        try ReplyWriter.checkCalls(summary)
        return Response.json(MessagesReply.message(id: id, model: model, summary: summary))
    }

    /// Streams the reply: its text and reasoning as they come, the calls at the end (``NamedEvents``).
    func stream(_ run: CompletionRun, into writer: inout any ResponseBodyWriter, logger: Logger, shutdown: ShutdownCut) async {
        var stream = MessagesStream(id: id, model: model)
        await NamedEvents.stream(run, through: &stream, into: &writer, id: id, logger: logger, shutdown: shutdown) { summary in
            record(summary, of: run, logger: logger)
        }
    }

    private func record(_ summary: ReplySummary, of run: CompletionRun, logger: Logger) {
        ReplyWriter.record(summary, of: run, reply: id, job: job, metrics: metrics, logger: logger)
    }
}
