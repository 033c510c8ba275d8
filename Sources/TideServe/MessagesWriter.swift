import Hummingbird
import Logging
import NIOCore
import TideAnthropic
import TideCore
import TideFormat
import TideOpenAI

/// Turns one reply's events into the Messages API's wire format: one message, or its stream of
/// named server-sent events (``TideAnthropic/MessagesStream``).
struct MessagesWriter: Sendable {
    let model: String
    let job: CompletionJob
    /// Where finished replies are counted, when the server keeps metrics.
    let metrics: ServerMetrics?
    let id = MessagesReply.freshID()

    /// Reads the whole reply into one message.
    func whole(_ run: CompletionRun, logger: Logger) async throws -> Response {
        while let event = try await run.next() {
            guard case .finished(let summary) = event else { continue }
            record(summary, of: run, logger: logger)
            try ReplyWriter.checkCalls(summary)
            return Response.json(MessagesReply.message(id: id, model: model, summary: summary))
        }
        throw APIError(status: 500, message: "the reply ended without a summary", type: "server_error")
    }

    /// Streams the reply: its text and reasoning as they come, the calls at the end. A failure
    /// partway, or a reply cut because the server stops (`shutdown`), is sent as an `error`
    /// event; a client gone (a write fails) stops the reply.
    func stream(_ run: CompletionRun, into writer: inout any ResponseBodyWriter, logger: Logger, shutdown: ShutdownCut) async {
        var stream = MessagesStream(id: id, model: model)
        do {
            try await send(stream.start(), to: &writer)
            while let event = try await run.next() {
                switch event {
                case .text(let text): try await send(stream.add(text, as: .text), to: &writer)
                case .reasoning(let text): try await send(stream.add(text, as: .thinking), to: &writer)
                case .finished(let summary) where summary.stopReason == .cancelled && shutdown.happened:
                    record(summary, of: run, logger: logger)
                    throw ShutdownCut.Happened(generatedTokens: summary.statistics.generatedTokens)
                case .finished(let summary):
                    record(summary, of: run, logger: logger)
                    try ReplyWriter.checkCalls(summary)
                    try await send(stream.finish(summary), to: &writer)
                // Log-probabilities are not asked for here; the server's own tools run on the
                // server; what a rewind took back was never sent.
                default: break
                }
            }
        } catch let cut as ShutdownCut.Happened {
            run.cancel()
            try? await send([MessagesStream.error("the server is shutting down: this reply was cut after \(cut.generatedTokens) tokens; "
                                                      + "send the request again once it is back", type: "overloaded_error")], to: &writer)
        } catch {
            run.cancel()
            logger.info("\(id): ended early: \(error)")
            try? await send([MessagesStream.error("\(error)")], to: &writer)
        }
        await run.finish()
    }

    private func send(_ events: [MessagesStream.Event], to writer: inout any ResponseBodyWriter) async throws {
        guard !events.isEmpty else { return }
        var bytes: [UInt8] = []
        for event in events { bytes += ServerSentEvent.encoded(name: event.name, data: Array(event.data.text.utf8)) }
        try await writer.write(ByteBuffer(bytes: bytes))
    }

    private func record(_ summary: ReplySummary, of run: CompletionRun, logger: Logger) {
        ReplyWriter.record(summary, of: run, reply: id, job: job, metrics: metrics, logger: logger)
    }
}
