/// A response of OpenAI's Responses API that `tide serve` keeps (`store`): its id, the
/// conversation a response continuing it reads first (what it answered, without its
/// `instructions`, then its reply), and the response object as it was sent.
public struct StoredResponse: Sendable, Hashable {
    /// The response's id (`resp_…`).
    public var id: String
    /// The conversation up to and including the reply.
    public var conversation: [ChatMessage]
    /// The response object's JSON text.
    public var body: String

    /// A stored response.
    public init(id: String, conversation: [ChatMessage], body: String) {
        self.id = id
        self.conversation = conversation
        self.body = body
    }
}

/// Where `tide serve` keeps the responses it stores, for `previous_response_id` and
/// `GET`/`DELETE /v1/responses/{id}`: the conversation log (so that a chain outlives a restart),
/// or the server's memory when there is no log.
public protocol ResponseStore: Sendable {
    /// Keeps `response`; a failure to keep it is the store's to report, not the reply's.
    func save(_ response: StoredResponse)
    /// The response `id`; `nil` when none is kept under it.
    func load(id: String) throws -> StoredResponse?
    /// Forgets the response `id`; whether one was kept.
    func delete(id: String) throws -> Bool
}
