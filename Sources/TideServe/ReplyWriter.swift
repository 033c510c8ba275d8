import Foundation
import Hummingbird
import Logging
import NIOCore
import TideCore
import TideOpenAI

/// Turns one reply's events into the OpenAI wire format of its endpoint: chunks of server-sent
/// events, or one chat or text completion.
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

    /// Streams the reply: a first chunk (a chat's role, a text's echoed prompt), a chunk per
    /// piece of text, a last chunk with the finish reason (and one with the usage, when asked),
    /// then `[DONE]`. A failure partway is sent as an error event, and so is a reply cut because
    /// the server stops (`shutdown`); a client gone (a write fails) stops the reply. Asked for,
    /// the log-probabilities of a piece's tokens come with it (a scored echo's with the echo).
    func stream(_ run: CompletionRun, into writer: inout any ResponseBodyWriter, logger: Logger,
                shutdown: ShutdownCut = ShutdownCut()) async {
        var logprobs = LogprobsOut()
        // A scored echo goes out with its scores, which come first, unless a plugin answers in the model's place.
        var echoWaits = !job.echo.isEmpty && job.parameters.scoresPrompt
        do {
            if job.endpoint == .chat || (!job.echo.isEmpty && !echoWaits) {
                try await send(chunk(job.echo, opening: true, logprobs: &logprobs), to: &writer)
            }
            while let event = try await run.next() {
                if echoWaits {
                    echoWaits = false
                    if case .promptLogprobs = event {} else { try await send(chunk(job.echo, opening: true, logprobs: &logprobs), to: &writer) }
                }
                switch event {
                case .logprobs(let tokens): logprobs.add(tokens)
                case .promptLogprobs(let prompt):
                    let echoed = logprobs.take(prompt: prompt)
                    try await send(TextCompletion(id: id, created: created, model: model, choices: [.init(text: job.echo, logprobs: echoed)]),
                                   to: &writer)
                case .text(let text): try await send(chunk(text, logprobs: &logprobs), to: &writer)
                case .reasoning(let text) where job.endpoint == .chat:
                    try await send(ChatCompletionChunk(id: id, created: created, model: model,
                                                       choices: [.init(delta: .init(reasoningContent: text))]), to: &writer)
                case .reasoning: break  // a text completion has no place for it
                case .hookFailure: break  // never returned: the run logs them
                // The server's own tools (its plugins') run on the server: the client sees the answer.
                // Calls of the client's tools end the reply (its summary has them).
                case .toolCall, .toolResult: break
                case .finished(let summary) where summary.stopReason == .cancelled && shutdown.happened:
                    log(summary, logger: logger)
                    try await send(APIErrorBody(message: "the server is shutting down: this reply was cut after "
                                                    + "\(summary.statistics.generatedTokens) tokens; send the request again once it is back",
                                                type: "server_error", code: "server_shutting_down"), to: &writer)
                case .finished(let summary):
                    log(summary, logger: logger)
                    try Self.checkCalls(summary)
                    for (index, call) in summary.toolCalls.enumerated() {
                        for piece in WireToolCallDelta.pieces(of: call, index: index) {
                            try await send(ChatCompletionChunk(id: id, created: created, model: model,
                                                               choices: [.init(delta: .init(toolCalls: [piece]))]), to: &writer)
                        }
                    }
                    try await send(chunk(nil, finishReason: Self.finishReason(summary), logprobs: &logprobs), to: &writer)
                    if job.includeUsage { try await send(usageChunk(Self.usage(summary)), to: &writer) }
                    try await writer.write(ByteBuffer(bytes: ServerSentEvent.done))
                }
            }
        } catch {
            run.cancel()
            logger.info("\(id): ended early: \(error)")
            try? await send(APIErrorBody(message: "\(error)", type: "server_error"), to: &writer)
        }
        await run.finish()
    }

    /// Reads the whole reply into one chat or text completion.
    func collect(_ run: CompletionRun, logger: Logger) async throws -> any Encodable & Sendable {
        while let event = try await run.next() {
            guard case .finished(let summary) = event else { continue }
            log(summary, logger: logger)
            try Self.checkCalls(summary)
            let finishReason = Self.finishReason(summary)
            var logprobs = LogprobsOut()
            logprobs.add(summary.logprobs)
            let wanted = job.parameters.logprobs != nil
            switch job.endpoint {
            case .chat:
                let calls = summary.toolCalls.isEmpty ? nil : summary.toolCalls.map(WireToolCall.init)
                return ChatCompletion(id: id, created: created, model: model,
                                      choices: [ChatCompletion.Choice(message: .init(role: "assistant", content: summary.text, toolCalls: calls,
                                                                                     reasoningContent: summary.reasoning.isEmpty ? nil : summary.reasoning),
                                                                      finishReason: finishReason,
                                                                      logprobs: wanted ? logprobs.takeChat() ?? ChatLogprobs(content: []) : nil)],
                                      usage: Self.usage(summary))
            case .text:
                let echoed = summary.promptLogprobs.map { logprobs.take(prompt: $0) }
                return TextCompletion(id: id, created: created, model: model,
                                      choices: [.init(text: job.echo + summary.text, finishReason: finishReason,
                                                      logprobs: wanted ? logprobs.takeText(after: echoed) ?? TextLogprobs() : nil)],
                                      usage: Self.usage(summary))
            }
        }
        throw APIError(status: 500, message: "the reply ended without a summary", type: "server_error")
    }

    /// One streamed piece: `text` (`nil` on the last piece, which carries the finish reason),
    /// with the log-probabilities of its tokens; the `opening` piece of a chat names the role.
    private func chunk(_ text: String?, opening: Bool = false, finishReason: String? = nil, logprobs: inout LogprobsOut)
        -> any Encodable & Sendable
    {
        switch job.endpoint {
        case .chat:
            ChatCompletionChunk(id: id, created: created, model: model,
                                choices: [.init(delta: .init(role: opening ? "assistant" : nil, content: text),
                                                finishReason: finishReason, logprobs: logprobs.takeChat())])
        case .text:
            TextCompletion(id: id, created: created, model: model,
                           choices: [.init(text: text ?? "", finishReason: finishReason, logprobs: logprobs.takeText())])
        }
    }

    /// The piece after the last, carrying the usage.
    private func usageChunk(_ usage: Usage) -> any Encodable & Sendable {
        switch job.endpoint {
        case .chat: ChatCompletionChunk(id: id, created: created, model: model, choices: [], usage: usage)
        case .text: TextCompletion(id: id, created: created, model: model, choices: [], usage: usage)
        }
    }

    /// Sends `value` as one `data:` event.
    private func send(_ value: some Encodable, to writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(bytes: ServerSentEvent.encoded(data: try encoder.encode(value))))
    }

    private func log(_ summary: ReplySummary, logger: Logger) {
        metrics?.record(summary)
        let statistics = summary.statistics
        logger.info("\(id): \(statistics.promptTokens) prompt tokens (\(statistics.reusedPromptTokens) cached), \(statistics.generatedTokens) generated, stop \(summary.stopReason)\(calls(summary))\(job.stream ? ", streamed" : "")")
    }

    /// The log's note of the tools the reply called: those run here and those left to the client.
    private func calls(_ summary: ReplySummary) -> String {
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

    static func usage(_ summary: ReplySummary) -> Usage {
        Usage(promptTokens: summary.statistics.promptTokens, completionTokens: summary.statistics.generatedTokens,
              cachedTokens: summary.statistics.reusedPromptTokens)
    }
}
