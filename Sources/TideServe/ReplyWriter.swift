import Foundation
import Hummingbird
import Logging
import NIOCore
import TideCore
import TideOpenAI

/// Turns one reply's events into the OpenAI wire format: chunks of server-sent events, or one
/// chat completion.
struct ReplyWriter: Sendable {
    let model: String
    let job: CompletionJob
    let id = "chatcmpl-" + UUID().uuidString.lowercased()
    let created = Int(Date.now.timeIntervalSince1970)
    /// One encoder for every chunk of the reply.
    private let encoder = JSONEncoder()

    /// Streams the reply: a first chunk with the role, a chunk per piece of text, a last chunk with
    /// the finish reason (and one with the usage, when asked), then `[DONE]`. A failure partway
    /// is sent as an error event; a client gone (a write fails) stops the reply.
    func stream(_ run: CompletionRun, into writer: inout any ResponseBodyWriter, logger: Logger) async {
        do {
            try await send(chunk(.init(role: "assistant", content: "")), to: &writer)
            while let event = try await run.next() {
                switch event {
                case .text(let text): try await send(chunk(.init(content: text)), to: &writer)
                case .hookFailure: break  // never returned: the run logs them
                case .finished(let summary):
                    log(summary, logger: logger)
                    try await send(chunk(.init(), finishReason: Self.finishReason(summary.stopReason)), to: &writer)
                    if job.includeUsage {
                        try await send(ChatCompletionChunk(id: id, created: created, model: model, choices: [],
                                                           usage: Self.usage(summary)), to: &writer)
                    }
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

    /// Reads the whole reply into one chat completion.
    func collect(_ run: CompletionRun, logger: Logger) async throws -> ChatCompletion {
        while let event = try await run.next() {
            guard case .finished(let summary) = event else { continue }
            log(summary, logger: logger)
            return ChatCompletion(id: id, created: created, model: model,
                                  choices: [ChatCompletion.Choice(message: .init(role: "assistant", content: summary.text),
                                                                  finishReason: Self.finishReason(summary.stopReason))],
                                  usage: Self.usage(summary))
        }
        throw APIError(status: 500, message: "the reply ended without a summary", type: "server_error")
    }

    private func chunk(_ delta: ChatCompletionChunk.Choice.Delta, finishReason: String? = nil) -> ChatCompletionChunk {
        ChatCompletionChunk(id: id, created: created, model: model,
                            choices: [ChatCompletionChunk.Choice(delta: delta, finishReason: finishReason)])
    }

    /// Sends `value` as one `data:` event.
    private func send(_ value: some Encodable, to writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(bytes: ServerSentEvent.encoded(data: try encoder.encode(value))))
    }

    private func log(_ summary: ReplySummary, logger: Logger) {
        let statistics = summary.statistics
        logger.info("\(id): \(statistics.promptTokens) prompt tokens (\(statistics.reusedPromptTokens) cached), \(statistics.generatedTokens) generated, stop \(summary.stopReason)\(job.stream ? ", streamed" : "")")
    }

    /// OpenAI's finish reasons: `length` when a limit cut the reply, else `stop`.
    static func finishReason(_ reason: StopReason) -> String {
        switch reason {
        case .maxTokens, .contextFull: "length"
        default: "stop"
        }
    }

    static func usage(_ summary: ReplySummary) -> Usage {
        Usage(promptTokens: summary.statistics.promptTokens, completionTokens: summary.statistics.generatedTokens)
    }
}
