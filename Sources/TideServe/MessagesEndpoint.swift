import Hummingbird
import TideAnthropic
import TideCore
import TideFormat

extension ChatServer {
    /// `POST /v1/messages`: Anthropic's Messages API, read into the conversation a chat
    /// completion's is (``TideAnthropic/MessagesRequest``) and answered on the same sequences,
    /// plugins and tool calls, whole or streamed (``MessagesWriter``).
    func messages(_ request: Request) async throws -> Response {
        let arrived = ContinuousClock.now
        var request = request
        var (job, lease) = try await readJob(from: &request, at: .messages)
        job.arrived = arrived
        let writer = MessagesWriter(model: lease.name, job: job, metrics: metrics)
        return try await answer(job, on: lease, id: writer.id, body: request.body) { runs in
            try await writer.whole(runs[0], logger: self.logger)
        } streaming: { [logger] runs, body, shutdown in
            await writer.stream(runs[0], into: &body, logger: logger, shutdown: shutdown)
        }
    }

    /// `POST /v1/messages/count_tokens`: the tokens of the prompt the request's messages, system
    /// and tools make, with the server's system prompt when the request has none, before the
    /// plugins' `on_prompt` hooks (`{"input_tokens": N}`).
    func countTokens(_ request: Request) async throws(APIError) -> Response {
        var request = request
        let (_, ordered) = try await readBody(of: &request)
        let read: MessagesRequest
        do {
            read = try MessagesRequest(parsing: ordered, for: .count)
        } catch {
            throw .request(error, context: "The body is not a count_tokens request")
        }
        let lease = try await lease(named: read.chat.model)
        guard let tokenizer = lease.model.tokenizer else {
            throw APIError(status: 501, message: "this server's model has no tokenizer to count with", type: "not_implemented_error")
        }
        do {
            var chat = read.chat
            // A conversation is counted as it stands: it need not end with a message to answer.
            chat.messages.append(.init(role: "user", content: ""))
            let job = try CompletionJob(chat, format: nil, tools: read.tools, configuration: lease.configuration,
                                        sequences: lease.pool.capacity, endpoint: .messages)
            let offered = job.parameters.offersTools ? job.parameters.tools : []
            let prompt = try tokenizer.prompt(for: Array(job.messages.dropLast()), offering: offered)
            let count = try tokenizer.tokens(of: prompt, addSpecial: true, parseSpecial: true).count
            return Response.json(.fields(["input_tokens": .number(Double(count))]))
        } catch {
            throw .request(error, context: "The body is not a count_tokens request")
        }
    }
}
