import Foundation
import Hummingbird
import TideCore
import TideFormat
import TideOpenAI

extension ChatServer {
    /// `POST /v1/responses`: OpenAI's Responses API, read into the conversation a chat
    /// completion's is (``TideOpenAI/ResponsesRequest``), after the stored conversation it
    /// continues (`previous_response_id`), and answered on the same sequences, plugins and tool
    /// calls, whole or streamed (``ResponsesWriter``); kept unless `store` is false.
    func responses(_ request: Request) async throws -> Response {
        let arrived = ContinuousClock.now
        var request = request
        var (read, job, lease) = try await readResponsesRequest(try await readBody(of: &request).json)
        job.arrived = arrived
        let writer = ResponsesWriter(reply: ResponsesReply(created: Int(Date.now.timeIntervalSince1970), model: lease.name,
                                                           request: read, parameters: job.parameters),
                                     job: job, metrics: metrics, store: read.store ? configuration.responses : nil)
        return try await answer(job, on: lease, id: writer.reply.id, body: request.body) { runs in
            try await writer.whole(runs[0], logger: self.logger)
        } streaming: { [logger] runs, body, shutdown in
            await writer.stream(runs[0], into: &body, logger: logger, shutdown: shutdown)
        }
    }

    /// The body read as a Responses API request, after the stored conversation it continues,
    /// the job it asks for, and the lease on the model it names.
    func readResponsesRequest(_ ordered: JSONValue) async throws(APIError)
        -> (read: ResponsesRequest, job: CompletionJob, lease: ModelLease)
    {
        let lease = try await lease(for: ordered)
        do {
            var earlier: [ChatMessage] = []
            if let previous = try ResponsesRequest.previousResponseID(in: ordered) {
                guard let stored = try configuration.responses.load(id: previous) else {
                    throw APIError.invalid("Previous response with id '\(previous)' not found: it was never stored here, was deleted, or was "
                                               + "made with store: false", param: "previous_response_id", code: "previous_response_not_found")
                }
                earlier = stored.conversation
            }
            let read = try ResponsesRequest(parsing: ordered, after: earlier)
            let job = try CompletionJob(read.chat, format: read.format, tools: read.tools, configuration: lease.configuration,
                                        sequences: lease.pool.capacity, endpoint: .responses)
            return (read, job, lease)
        } catch {
            throw .request(error, context: "The body is not a Responses API request")
        }
    }

    /// `GET /v1/responses/{id}`: a stored response as it was sent.
    func storedResponse(_ request: Request) throws -> Response {
        let id = Self.responseID(in: request)
        guard let stored = try configuration.responses.load(id: id) else { throw Self.noResponse(id) }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: stored.body)))
    }

    /// `DELETE /v1/responses/{id}`: forgets a stored response.
    func deleteResponse(_ request: Request) throws -> Response {
        let id = Self.responseID(in: request)
        guard try configuration.responses.delete(id: id) else { throw Self.noResponse(id) }
        return Response.json(.fields(["id": .string(id), "object": .string("response.deleted"), "deleted": .bool(true)]))
    }

    private static func responseID(in request: Request) -> String {
        String(request.uri.path.dropFirst("/v1/responses/".count))
    }

    private static func noResponse(_ id: String) -> APIError {
        APIError(status: 404, message: "Response with id '\(id)' not found: it was never stored here, was deleted, or was made with store: false",
                 code: "not_found", param: "response_id")
    }
}
