/// The body of a text completion (`object: text_completion`): the whole reply, or, streamed, one
/// `data:` event of it, which has the same shape (the finish reason on the last, the usage on
/// its own after it when asked).
public struct TextCompletion: Codable, Sendable, Hashable {
    /// The one choice, or a piece of it.
    public struct Choice: Codable, Sendable, Hashable {
        public var text: String
        public var index: Int
        /// `stop` or `length`; on a stream, only on its last piece.
        public var finishReason: String?
        /// The text's tokens' log-probabilities (on a stream, the piece's), when the request asked for them.
        public var logprobs: TextLogprobs?

        enum CodingKeys: String, CodingKey {
            case text, index, logprobs
            case finishReason = "finish_reason"
        }

        public init(text: String, index: Int = 0, finishReason: String? = nil, logprobs: TextLogprobs? = nil) {
            self.text = text
            self.index = index
            self.finishReason = finishReason
            self.logprobs = logprobs
        }
    }

    public var id: String
    public var object: String
    public var created: Int
    public var model: String
    public var choices: [Choice]
    public var usage: Usage?

    public init(id: String, created: Int, model: String, choices: [Choice], usage: Usage? = nil) {
        self.id = id
        object = "text_completion"
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }
}
