/// A choice of a completion's body: its kind names the body's `object`.
public protocol CompletionChoice: Codable, Sendable, Hashable {
    /// The `object` of a body of such choices: `chat.completion`, `chat.completion.chunk`, `text_completion`.
    static var object: String { get }
}

/// The envelope OpenAI puts completions' choices in, streamed or not: an id, the object's kind,
/// when it was made, the model, the choices and the token counts.
public struct CompletionBody<Choice: CompletionChoice>: Codable, Sendable, Hashable {
    /// The completion's id (`chatcmpl-…`, `cmpl-…`), the same on every event of a stream.
    public var id: String
    /// What the body is: the choices' ``CompletionChoice/object``.
    public var object: String
    /// When it was made, in seconds since 1970.
    public var created: Int
    /// The model's name, as the server serves it.
    public var model: String
    /// The choices, or on a stream the pieces of those that moved.
    public var choices: [Choice]
    /// The token counts: on a whole body, and on a stream's last event when the request asked.
    public var usage: Usage?

    /// A body of `choices`; its `object` is theirs.
    public init(id: String, created: Int, model: String, choices: [Choice], usage: Usage? = nil) {
        self.id = id
        object = Choice.object
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }
}
