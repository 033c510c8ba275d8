import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import ServiceLifecycle
import TideOpenAI

extension ChatServer {
    /// The response to `job`, whose reply is `id`, whichever API asked: `whole` makes the one
    /// response from the finished runs, `streaming` writes their events as they come. Either way
    /// a client that leaves stops the replies at once, which frees their sequences; a stream waits
    /// for the sequences and the first events first, so that an error still gets its status.
    func answer(_ job: CompletionJob, on lease: ModelLease, id: String, body: RequestBody,
                whole: @escaping @Sendable ([CompletionRun]) async throws -> Response,
                streaming: @escaping @Sendable ([CompletionRun], inout any ResponseBodyWriter, ShutdownCut) async -> Void)
        async throws -> Response
    {
        guard job.stream else { return await answerWhole(job, on: lease, id: id, body: body, whole: whole) }
        let runs = try await start(job, on: lease, id: id)
        return Response(status: .ok, headers: Self.streamHeaders, body: ResponseBody { writer in
            try await self.stream(runs, body: body, into: &writer, streaming: streaming)
            try await writer.finish(nil)
        })
    }

    /// What writes a stream's events as its runs make them.
    typealias Streaming = @Sendable ([CompletionRun], inout any ResponseBodyWriter, ShutdownCut) async -> Void

    /// A streamed response whose model `name` must load first: it opens at once with a comment
    /// saying so (`: loading NAME`, which clients skip), then `prepare` leases the model, reads
    /// the job and starts its runs, whose events its `Streaming` writes; an error meanwhile, the
    /// status already sent, is an error event in OpenAI's shape.
    func streamAfterLoading(_ name: String, body: RequestBody,
                            prepare: @escaping @Sendable () async throws -> ([CompletionRun], Streaming)) -> Response {
        Response(status: .ok, headers: Self.streamHeaders, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": loading \(name): the first request to it loads it\n\n"))
            let prepared: ([CompletionRun], Streaming)
            do {
                prepared = try await prepare()
            } catch {
                let refusal = (error as? APIError) ?? .unexpected(error)
                self.logger.info("refused a request: \(refusal.status.code) \(refusal.body.error.message)")
                try await writer.write(ByteBuffer(bytes: ServerSentEvent.encoded(data: try JSONEncoder().encode(refusal.body))))
                try await writer.finish(nil)
                return
            }
            try await self.stream(prepared.0, body: body, into: &writer, streaming: prepared.1)
            try await writer.finish(nil)
        })
    }

    /// A stream's headers. Watching for the client to leave uses up the connection (here and for
    /// whole replies): they say so, so that clients do not send their next request on it.
    private static let streamHeaders: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache", .connection: "close"]

    /// Writes the events of `runs` with `streaming`. A client that leaves stops the reply at once,
    /// which frees its sequence. A stop of the server lets the reply run for most of the grace,
    /// then cuts it while the connection is still open, so that the client is told why its
    /// stream ends.
    private func stream(_ runs: [CompletionRun], body: RequestBody, into writer: inout any ResponseBodyWriter,
                        streaming: Streaming) async throws {
        let grace = configuration.serverLimits.shutdownGrace
        let shutdown = ShutdownCut()
        try await withGracefulShutdownHandler {
            try await body.consumeWithInboundCloseHandler { _ in
                await streaming(runs, &writer, shutdown)
            } onInboundClosed: {
                for run in runs { run.cancel() }
            }
        } onGracefulShutdown: {
            Task {
                try? await Task.sleep(for: ShutdownCut.delay(within: grace))
                shutdown.cut()
                for run in runs { run.cancel() }
            }
        }
    }

    /// Answers a request for whole replies. A client that leaves, while its request waits for
    /// sequences or while the replies are made, stops them at once.
    private func answerWhole(_ job: CompletionJob, on lease: ModelLease, id: String, body: RequestBody,
                             whole: @escaping @Sendable ([CompletionRun]) async throws -> Response) async -> Response
    {
        do {
            var response = try await body.consumeWithCancellationOnInboundClose { _ in
                let runs = try await self.start(job, on: lease, id: id)
                do {
                    let response = try await whole(runs)
                    for run in runs { await run.finish() }
                    return response
                } catch {
                    for run in runs { run.cancel() }
                    for run in runs { await run.finish() }
                    throw error
                }
            }
            response.headers[.connection] = "close"
            return response
        } catch is CancellationError {
            logger.info("\(id): the client left before the reply was complete")
            return Response(status: .init(code: 499, reasonPhrase: "Client Closed Request"))
        } catch {
            // Watching for the client to leave used up the connection here too.
            var response = ErrorAnswer.answer(error, to: job.endpoint.path, logger: logger)
            response.headers[.connection] = "close"
            return response
        }
    }
}
