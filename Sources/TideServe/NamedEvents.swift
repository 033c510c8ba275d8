import Hummingbird
import Logging
import NIOCore
import TideAnthropic
import TideCore
import TideFormat
import TideOpenAI

/// A reply's stream of named server-sent events (`event:` then `data:`), as the Messages and
/// Responses APIs send them: what each API's events are for the reply's start, its text and
/// reasoning, its end, and a failure.
protocol NamedEventStream: Sendable {
    mutating func start() -> [(name: String, data: JSONValue)]
    mutating func add(_ text: String, reasoning: Bool) -> [(name: String, data: JSONValue)]
    /// The events for what a call's text, as the model writes it, made known.
    mutating func call(_ piece: ToolCallStream.Event) -> [(name: String, data: JSONValue)]
    mutating func finish(_ summary: ReplySummary) -> [(name: String, data: JSONValue)]
    /// The event that ends a stream cut partway: by the server's stop, or by `message`.
    mutating func failure(_ message: String, shuttingDown: Bool) -> (name: String, data: JSONValue)
}

extension MessagesStream: NamedEventStream {
    mutating func add(_ text: String, reasoning: Bool) -> [Event] { add(text, as: reasoning ? .thinking : .text) }

    func failure(_ message: String, shuttingDown: Bool) -> Event {
        Self.error(message, type: shuttingDown ? "overloaded_error" : "api_error")
    }
}

extension ResponsesStream: NamedEventStream {
    mutating func add(_ text: String, reasoning: Bool) -> [Event] { add(text, as: reasoning ? .reasoning : .text) }

    mutating func failure(_ message: String, shuttingDown: Bool) -> Event {
        error(message, code: shuttingDown ? "server_shutting_down" : "server_error")
    }
}

/// Writes one reply as a stream of named events.
enum NamedEvents {
    /// Streams `run`'s reply `id` through `stream`: its text and reasoning as they come, then its
    /// end. The calls of the client's tools come as the model writes them (``TideFormat/ToolCallStream``)
    /// when the run allows it (``CompletionRun/streamsCalls``); else whole, with the end. `finished` is given the summary as it comes (to count it),
    /// `ended` the stream once it has made its last events (to keep the response as sent). A call the model wrote that
    /// cannot be read, a failure partway, or a reply cut because the server stops (`shutdown`) is
    /// sent as the stream's failure event; a client gone (a write fails) stops the reply.
    static func stream<Stream: NamedEventStream>(_ run: CompletionRun, through stream: inout Stream, into writer: inout any ResponseBodyWriter,
                                                 id: String, logger: Logger, shutdown: ShutdownCut, finished: (ReplySummary) -> Void,
                                                 ended: (ReplySummary, Stream) -> Void = { _, _ in }) async
    {
        var calls: ToolCallStream? = run.streamsCalls ? ToolCallStream() : nil
        do {
            try await send(stream.start(), to: &writer)
            while let event = try await run.next() {
                switch event {
                case .toolCallText(let text) where calls != nil:
                    for piece in calls!.read(text) { try await send(stream.call(piece), to: &writer) }
                case .text(let text): try await send(stream.add(text, reasoning: false), to: &writer)
                case .reasoning(let text): try await send(stream.add(text, reasoning: true), to: &writer)
                case .finished(let summary) where summary.stopReason == .cancelled && shutdown.happened:
                    finished(summary)
                    throw ShutdownCut.Happened(generatedTokens: summary.statistics.generatedTokens)
                case .finished(let summary):
                    finished(summary)
                    try ReplyWriter.checkCalls(summary)
                    let events = stream.finish(summary)
                    ended(summary, stream)
                    try await send(events, to: &writer)
                // Log-probabilities are not asked for here; the server's own tools run on the
                // server; what a rewind took back was never sent.
                default: break
                }
            }
        } catch let cut as ShutdownCut.Happened {
            run.cancel()
            try? await send([stream.failure("the server is shutting down: this reply was cut after \(cut.generatedTokens) tokens; "
                                                + "send the request again once it is back", shuttingDown: true)], to: &writer)
        } catch {
            run.cancel()
            logger.info("\(id): ended early: \(error)")
            try? await send([stream.failure("\(error)", shuttingDown: false)], to: &writer)
        }
        await run.finish()
    }

    /// Writes `events` at once, each its name and its data as compact JSON.
    static func send(_ events: [(name: String, data: JSONValue)], to writer: inout any ResponseBodyWriter) async throws {
        guard !events.isEmpty else { return }
        var bytes: [UInt8] = []
        for event in events { bytes += ServerSentEvent.encoded(name: event.name, data: Array(event.data.text.utf8)) }
        try await writer.write(ByteBuffer(bytes: bytes))
    }
}
