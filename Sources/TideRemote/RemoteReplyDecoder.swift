import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import TideCore
import TideOpenAI

/// Reads one streamed reply: a task reads the HTTP body and parses its events; `nextToken`
/// takes one streamed piece at a time. Closing the decoder (a plugin's stop, Ctrl-C, the end)
/// cancels the request at once.
final class RemoteReplyDecoder: ReplyDecoder {
    /// The tags a server's `reasoning_content` is put back between.
    static let markers = ReasoningMarkers()
    let promptTokenCount: Int
    let reusedPromptTokenCount = 0
    private let url: String
    private let timeout: Duration
    private let continuation: AsyncThrowingStream<DecodedToken, any Error>.Continuation
    private var iterator: AsyncThrowingStream<DecodedToken, any Error>.AsyncIterator
    private var reader: Task<Void, Never>?
    /// The tool calls streamed so far, piece by piece.
    private let calls = StreamedToolCalls()
    /// Told once, when the reply is over: with its error, `nil` when it ended well or was stopped.
    private let ended: Ended

    /// A decoder of the reply `url` streams; `ended` is told once, when the reply is over.
    init(url: String, timeout: Duration, promptTokenCount: Int, ended: @escaping @Sendable ((any Error)?) -> Void = { _ in }) {
        self.url = url
        self.timeout = timeout
        self.promptTokenCount = promptTokenCount
        self.ended = Ended(ended)
        let (pieces, continuation) = AsyncThrowingStream.makeStream(of: DecodedToken.self)
        self.continuation = continuation
        iterator = pieces.makeAsyncIterator()
    }

    /// Sends the request and waits for the response head: a refused connection or an error
    /// status is thrown here, before any text. `events` reads the events of the API asked.
    func start(_ request: HTTPClientRequest, events: some StreamedReplyReader) async throws {
        let response: HTTPClientResponse
        do {
            response = try await send(request)
            guard response.status.code == 200 else {
                throw RemoteError.http(status: Int(response.status.code), url: url, message: await Self.message(in: response.body),
                                       retryAfter: Self.retryAfter(response.headers))
            }
        } catch {
            ended.tell(error)
            throw error
        }
        let continuation = self.continuation
        let (url, timeout, ended) = (self.url, self.timeout, self.ended)
        let body = response.body
        let calls = self.calls
        reader = Task {
            ended.tell(await RemoteReplyDecoder.pump(body, url: url, timeout: timeout, calls: calls, reader: events, into: continuation))
        }
    }

    /// Tells of the end of a reply once, however many ways it ends.
    private final class Ended: Sendable {
        private let told = Mutex(false)
        private let tell: @Sendable ((any Error)?) -> Void

        init(_ tell: @escaping @Sendable ((any Error)?) -> Void) {
            self.tell = tell
        }

        func tell(_ error: (any Error)?) {
            guard !told.withLock({ told in defer { told = true }; return told }) else { return }
            tell(error)
        }
    }

    private static func isStaleConnection(_ error: any Error) -> Bool {
        if let error = error as? IOError { return [ECONNRESET, EPIPE].contains(error.errnoCode) }
        return (error as? HTTPClientError) == .remoteConnectionClosed
    }

    /// The wait a response asks for: `Retry-After` in seconds (an HTTP date is read as no wait
    /// asked, and backing off decides).
    static func retryAfter(_ headers: HTTPHeaders) -> Int? {
        headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) }
    }

    /// The message of an error response: OpenAI's `error.message`, else the body as text.
    static func message(in body: HTTPClientResponse.Body) async -> String {
        var bytes = ByteBuffer()
        do {
            bytes = try await body.collect(upTo: 64 * 1024)
        } catch {
            return ""
        }
        let text = bytes.readString(length: bytes.readableBytes) ?? ""
        let message = (try? JSONDecoder().decode(APIErrorBody.self, from: Data(text.utf8)))?.error.message ?? text
        return String(message.trimmingCharacters(in: .whitespacesAndNewlines).prefix(500))
    }

    /// Sends the request, once more if a kept-alive connection turns out to have been closed by
    /// the server meanwhile (as a server does after a stream it ended with an error). The
    /// client's timeouts bound it: one to connect, one for the server's silence once the
    /// request is sent.
    private func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let client = RemoteClients.client(timeout: timeout)
        do {
            do {
                return try await client.execute(request, deadline: .distantFuture)
            } catch where Self.isStaleConnection(error) {
                return try await client.execute(request, deadline: .distantFuture)
            }
        } catch {
            throw describe(error)
        }
    }

    /// Reads the body into the pieces, ending them with the reply's end or its error; returns
    /// the error.
    private static func pump(_ body: HTTPClientResponse.Body, url: String, timeout: Duration, calls: StreamedToolCalls,
                             reader: some StreamedReplyReader,
                             into continuation: AsyncThrowingStream<DecodedToken, any Error>.Continuation) async -> (any Error)? {
        do {
            try await read(body, url: url, calls: calls, reader: reader, into: continuation)
            return nil
        } catch {
            // Past the response head, a transport failure is the stream breaking off.
            var described = describe(error, url: url, timeout: timeout)
            if case RemoteError.unreachable = described { described = RemoteError.dropped(url: url) }
            continuation.finish(throwing: described)
            return described
        }
    }

    /// Parses the body's events into pieces with `reader` (the API's). The reply ends at the
    /// event that says so (`[DONE]`, a finish reason, `message_stop`, `response.completed`); the
    /// body is read to its end either way, so the connection goes back to the pool clean.
    private static func read(_ body: HTTPClientResponse.Body, url: String, calls: StreamedToolCalls, reader: some StreamedReplyReader,
                             into continuation: AsyncThrowingStream<DecodedToken, any Error>.Continuation) async throws {
        var reader = reader
        var parser = ServerSentEventParser()
        var finished = false
        // A server that gives the reasoning apart (`reasoning_content`, a thinking block) has it
        // put back between the tags, where the reply loop takes it apart again as it does a
        // local model's.
        var reasoning = false
        func yield(_ text: String) { continuation.yield(.token(id: nil, bytes: Array(text.utf8))) }
        for try await chunk in body {
            let events: [ServerSentEvent]
            do {
                events = try parser.feed(chunk.readableBytesView)
            } catch {
                throw RemoteError.malformed(url: url, detail: error.description)
            }
            for event in events where !finished {
                let pieces: [StreamedPiece]
                do {
                    pieces = try reader.read(event)
                } catch {
                    switch error {
                    case .server(let message): throw RemoteError.server(url: url, message: message)
                    case .malformed(let detail): throw RemoteError.malformed(url: url, detail: detail)
                    }
                }
                for piece in pieces where !finished {
                    switch piece {
                    case .reasoning(let thought):
                        if !reasoning { yield(Self.markers.open) }
                        reasoning = true
                        yield(thought)
                    case .text(let content):
                        if reasoning { yield(Self.markers.close) }
                        reasoning = false
                        yield(content)
                    case .toolCall(let call): calls.add([call])
                    case .finished: finished = true
                    }
                }
            }
        }
        guard finished else { throw RemoteError.dropped(url: url) }
        if reasoning { yield(Self.markers.close) }
        continuation.yield(.endOfGeneration)
        continuation.finish()
    }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        try Task.checkCancellation()
        return try await iterator.next() ?? .endOfGeneration
    }

    func toolCalls() throws(ToolFailure) -> [ToolCall] {
        try calls.calls()
    }

    func close() {
        reader?.cancel()
        continuation.finish()
        // Stopped before the reply's end: the replica did nothing wrong.
        if reader == nil { ended.tell(nil) }
    }

    private func describe(_ error: any Error) -> any Error {
        Self.describe(error, url: url, timeout: timeout)
    }

    /// A transport error as a ``RemoteError``; others as they are. `timeout` is the silence
    /// the request was allowed.
    static func describe(_ error: any Error, url: String, timeout: Duration) -> any Error {
        if error is RemoteError || error is CancellationError { return error }
        if let client = error as? HTTPClientError {
            switch client {
            case .readTimeout:
                return RemoteError.timedOut(url: url, seconds: Int(timeout.components.seconds))
            case .connectTimeout:
                let seconds = Int(min(RemoteClients.connectTimeout, timeout).components.seconds)
                return RemoteError.unreachable(url: url, reason: "no connection within \(seconds) s")
            case .cancelled: return CancellationError()
            case .remoteConnectionClosed: return RemoteError.dropped(url: url)
            default: return RemoteError.unreachable(url: url, reason: "\(client)")
            }
        }
        if let error = error as? IOError { return RemoteError.unreachable(url: url, reason: String(cString: strerror(error.errnoCode))) }
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first {
            return describe(first.error, url: url, timeout: timeout)
        }
        return RemoteError.unreachable(url: url, reason: "\(error)")
    }
}
