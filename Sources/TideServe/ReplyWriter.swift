import Foundation
import Hummingbird
import Logging
import NIOCore
import TideCore
import TideOpenAI

/// Turns one reply's events into the OpenAI wire format of its endpoint: chunks of server-sent
/// events, or one chat or text completion. (The Messages and Responses APIs' replies are ``MessagesWriter``'s and ``ResponsesWriter``'s.)
struct ReplyWriter: Sendable {
    let model: String
    let job: CompletionJob
    /// Where finished replies are counted, when the server keeps metrics.
    let metrics: ServerMetrics?
    let id: String
    let created = Int(Date.now.timeIntervalSince1970)
    /// One encoder for every chunk of the reply.
    private let encoder = JSONEncoder()

    init(model: String, job: CompletionJob, metrics: ServerMetrics? = nil) {
        self.model = model
        self.job = job
        self.metrics = metrics
        id = (job.endpoint == .chat ? "chatcmpl-" : "cmpl-") + UUID().uuidString.lowercased()
    }

    /// Streams the replies, one a choice: for each, a first chunk (a chat's role, a text's echoed
    /// prompt), a chunk per piece of text, a last chunk with the finish reason, each with the
    /// choice's `index`; the choices' chunks interleave as they are made. Then a chunk with the
    /// usage (when asked), then `[DONE]`. A failure partway is sent as an error event, and so is a
    /// reply cut because the server stops (`shutdown`); a client gone (a write fails) stops the
    /// replies. Asked for, the log-probabilities of a piece's tokens come with it (a scored echo's
    /// with the echo).
    func stream(_ runs: [CompletionRun], into writer: inout any ResponseBodyWriter, logger: Logger,
                shutdown: ShutdownCut = ShutdownCut()) async {
        // A scored echo goes out with its scores, which come first, unless a plugin answers in the model's place.
        var choices = runs.map { _ in StreamedChoice(echoWaits: !job.echo.isEmpty && job.parameters.scoresPrompt) }
        // By choice, for the usage: the first choice's prompt is the one evaluated.
        var summaries = [ReplySummary?](repeating: nil, count: runs.count)
        do {
            for index in runs.indices where job.endpoint == .chat || (!job.echo.isEmpty && !choices[index].echoWaits) {
                try await send(chunk(job.echo, choice: index, opening: true, logprobs: &choices[index].logprobs), to: &writer)
            }
            for try await (index, event) in Self.merged(runs) {
                if choices[index].echoWaits {
                    choices[index].echoWaits = false
                    if case .promptLogprobs = event {} else {
                        try await send(chunk(job.echo, choice: index, opening: true, logprobs: &choices[index].logprobs), to: &writer)
                    }
                }
                switch event {
                case .logprobs(let tokens): choices[index].logprobs.add(tokens)
                case .promptLogprobs(let prompt):
                    let echoed = choices[index].logprobs.take(prompt: prompt)
                    try await send(TextCompletion(id: id, created: created, model: model,
                                                  choices: [.init(text: job.echo, index: index, logprobs: echoed)]), to: &writer)
                case .text(let text): try await send(chunk(text, choice: index, logprobs: &choices[index].logprobs), to: &writer)
                case .reasoning(let text) where job.endpoint == .chat:
                    try await send(ChatCompletionChunk(id: id, created: created, model: model,
                                                       choices: [.init(index: index, delta: .init(reasoningContent: text))]), to: &writer)
                case .reasoning: break  // a text completion has no place for it
                case .hookFailure: break  // never returned: the run logs them
                case .rewound: break  // taken back before it was sent
                case .toolCallText: break  // Chat Completions streams a call whole, once the policy has seen it
                // The server's own tools (its plugins') run on the server: the client sees the answer.
                // Calls of the client's tools end the reply (its summary has them).
                case .toolCall, .toolResult: break
                case .finished(let summary) where summary.stopReason == .cancelled && shutdown.happened:
                    log(summary, of: runs[index], logger: logger)
                    throw ShutdownCut.Happened(generatedTokens: summary.statistics.generatedTokens)
                case .finished(let summary):
                    log(summary, of: runs[index], logger: logger)
                    try Self.checkCalls(summary)
                    for (number, call) in summary.toolCalls.enumerated() {
                        for piece in WireToolCallDelta.pieces(of: call, index: number) {
                            try await send(ChatCompletionChunk(id: id, created: created, model: model,
                                                               choices: [.init(index: index, delta: .init(toolCalls: [piece]))]), to: &writer)
                        }
                    }
                    try await send(chunk(nil, choice: index, finishReason: Self.finishReason(summary), logprobs: &choices[index].logprobs),
                                   to: &writer)
                    summaries[index] = summary
                }
            }
            if job.includeUsage { try await send(usageChunk(Self.usage(summaries.compactMap { $0 })), to: &writer) }
            try await writer.write(ByteBuffer(bytes: ServerSentEvent.done))
        } catch let cut as ShutdownCut.Happened {
            for run in runs { run.cancel() }
            try? await send(APIErrorBody(message: "the server is shutting down: this reply was cut after \(cut.generatedTokens) tokens; "
                                             + "send the request again once it is back", type: "server_error", code: "server_shutting_down"),
                            to: &writer)
        } catch {
            for run in runs { run.cancel() }
            logger.info("\(id): ended early: \(error)")
            try? await send(APIErrorBody(message: "\(error)", type: "server_error"), to: &writer)
        }
        for run in runs { await run.finish() }
    }

    /// What one streamed choice still has to send.
    private struct StreamedChoice {
        var logprobs = LogprobsOut()
        /// Whether its echo waits for the prompt's scores.
        var echoWaits: Bool
    }

    /// The events of every run, each with its run's index, as they come; the first failure ends them.
    private static func merged(_ runs: [CompletionRun]) -> AsyncThrowingStream<(Int, ReplyEvent), any Error> {
        let (events, continuation) = AsyncThrowingStream.makeStream(of: (Int, ReplyEvent).self)
        let reading = Task {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, run) in runs.enumerated() {
                        group.addTask {
                            while let event = try await run.next() { continuation.yield((index, event)) }
                        }
                    }
                    try await group.waitForAll()
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in reading.cancel() }
        return events
    }

    /// Reads the whole replies, one a choice, into one chat or text completion.
    func collect(_ runs: [CompletionRun], logger: Logger) async throws -> any Encodable & Sendable {
        var summaries: [ReplySummary] = []
        // Each run decodes on its own, whichever is read first.
        for run in runs {
            let summary = try await Self.summary(of: run)
            log(summary, of: run, logger: logger)
            try Self.checkCalls(summary)
            summaries.append(summary)
        }
        let wanted = job.parameters.logprobs != nil
        switch job.endpoint {
        case .chat, .messages, .responses:
            let choices = summaries.enumerated().map { index, summary in
                var logprobs = LogprobsOut()
                logprobs.add(summary.logprobs)
                let calls = summary.toolCalls.isEmpty ? nil : summary.toolCalls.map(WireToolCall.init)
                return ChatCompletionChoice(index: index,
                                             message: .init(role: "assistant", content: summary.text, toolCalls: calls,
                                                            reasoningContent: summary.reasoning.isEmpty ? nil : summary.reasoning),
                                             finishReason: Self.finishReason(summary),
                                             logprobs: wanted ? logprobs.takeChat() ?? ChatLogprobs(content: []) : nil)
            }
            return ChatCompletion(id: id, created: created, model: model, choices: choices, usage: Self.usage(summaries))
        case .text:
            let choices = summaries.enumerated().map { index, summary in
                var logprobs = LogprobsOut()
                logprobs.add(summary.logprobs)
                let echoed = summary.promptLogprobs.map { logprobs.take(prompt: $0) }
                return TextCompletionChoice(text: job.echo + summary.text, index: index, finishReason: Self.finishReason(summary),
                                             logprobs: wanted ? logprobs.takeText(after: echoed) ?? TextLogprobs() : nil)
            }
            return TextCompletion(id: id, created: created, model: model, choices: choices, usage: Self.usage(summaries))
        }
    }

    /// The summary that ends `run`'s events; a 500 if they end without one.
    static func summary(of run: CompletionRun) async throws -> ReplySummary {
        while let event = try await run.next() {
            if case .finished(let summary) = event { return summary }
        }
        throw APIError(status: 500, message: "the reply ended without a summary", type: "server_error")
    }

    /// One streamed piece of choice number `choice`: `text` (`nil` on the last piece, which
    /// carries the finish reason), with the log-probabilities of its tokens; the `opening` piece
    /// of a chat names the role.
    private func chunk(_ text: String?, choice: Int, opening: Bool = false, finishReason: String? = nil, logprobs: inout LogprobsOut)
        -> any Encodable & Sendable
    {
        switch job.endpoint {
        case .chat, .messages, .responses:
            ChatCompletionChunk(id: id, created: created, model: model,
                                choices: [.init(index: choice, delta: .init(role: opening ? "assistant" : nil, content: text),
                                                finishReason: finishReason, logprobs: logprobs.takeChat())])
        case .text:
            TextCompletion(id: id, created: created, model: model,
                           choices: [.init(text: text ?? "", index: choice, finishReason: finishReason, logprobs: logprobs.takeText())])
        }
    }

    /// The piece after the last, carrying the usage.
    private func usageChunk(_ usage: Usage) -> any Encodable & Sendable {
        switch job.endpoint {
        case .chat, .messages, .responses: ChatCompletionChunk(id: id, created: created, model: model, choices: [], usage: usage)
        case .text: TextCompletion(id: id, created: created, model: model, choices: [], usage: usage)
        }
    }

    /// Sends `value` as one `data:` event.
    private func send(_ value: some Encodable, to writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(bytes: ServerSentEvent.encoded(data: try encoder.encode(value))))
    }

    private func log(_ summary: ReplySummary, of run: CompletionRun, logger: Logger) {
        Self.record(summary, of: run, reply: id, job: job, metrics: metrics, logger: logger)
    }

    /// Counts `summary`, the end of `job`'s reply `id` on `run`, in `metrics` and logs it:
    /// whatever API asked for it.
    static func record(_ summary: ReplySummary, of run: CompletionRun, reply id: String, job: CompletionJob, metrics: ServerMetrics?,
                       logger: Logger)
    {
        metrics?.record(summary, waited: run.sequenceLent - job.arrived)
        let statistics = summary.statistics
        logger.info("\(id): \(statistics.promptTokens) prompt tokens (\(statistics.reusedPromptTokens) cached), \(statistics.generatedTokens) generated, stop \(summary.stopReason)\(calls(summary))\(job.stream ? ", streamed" : "")")
    }

    /// The log's note of the tools the reply called: those run here and those left to the client.
    private static func calls(_ summary: ReplySummary) -> String {
        let ran = summary.statistics.toolResults.map { "\($0.call.name)\($0.failed ? " (failed)" : "")" }
        return (ran.isEmpty ? "" : ", ran tools: " + ran.joined(separator: ", "))
            + (summary.toolCalls.isEmpty ? "" : ", calls for the client: " + summary.toolCalls.map(\.name).joined(separator: ", "))
    }

    /// OpenAI's finish reasons: `tool_calls` when the reply calls the client's tools, `length`
    /// when a limit cut it, else `stop`.
    /// Throws when the model wrote a tool call that could not be read: the client gets the error,
    /// not an empty reply that looks like one without a call. A reply cut by `max_tokens` inside
    /// a call is not an error: it ends with `length`, as OpenAI's do.
    static func checkCalls(_ summary: ReplySummary) throws(APIError) {
        guard let problem = summary.toolCallProblem, summary.stopReason != .maxTokens else { return }
        throw APIError(status: 500, message: "the model's tool call could not be read: \(problem)", type: "server_error")
    }

    static func finishReason(_ summary: ReplySummary) -> String {
        if !summary.toolCalls.isEmpty { return "tool_calls" }
        return switch summary.stopReason {
        case .maxTokens, .contextFull: "length"
        default: "stop"
        }
    }

    /// The usage of a request's choices: the prompt counted once (its evaluation is shared), the
    /// tokens of every choice.
    static func usage(_ summaries: [ReplySummary]) -> Usage {
        Usage(promptTokens: summaries.first?.statistics.promptTokens ?? 0,
              completionTokens: summaries.reduce(0) { $0 + $1.statistics.generatedTokens },
              cachedTokens: summaries.first?.statistics.reusedPromptTokens)
    }
}
