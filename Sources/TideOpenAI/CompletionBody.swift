/// A choice of a completion's body: its kind names the body's `object`.
public protocol CompletionChoice: Codable, Sendable, Hashable {
    /// The `object` of a body of such choices: `chat.completion`, `chat.completion.chunk`, `text_completion`.
    static var object: String { get }
}

/// The envelope OpenAI puts completions' choices in, streamed or not: an id, the object's kind,
/// when it was made, the model, the choices and the token counts.
public struct CompletionBody<Choice: CompletionChoice>: Codable, Sendable, Hashable {
    public var id: String
    public var object: String
    public var created: Int
    public var model: String
    public var choices: [Choice]
    /// The token counts: on a whole body, and on a stream's last event when the request asked.
    public var usage: Usage?

    public init(id: String, created: Int, model: String, choices: [Choice], usage: Usage? = nil) {
        self.id = id
        object = Choice.object
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }
}
