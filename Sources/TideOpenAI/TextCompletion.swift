/// The body of a text completion (`object: text_completion`): the whole reply, or, streamed, one
/// `data:` event of it, which has the same shape (the finish reason on the last, the usage on
/// its own after it when asked).
public typealias TextCompletion = CompletionBody<TextCompletionChoice>

/// The one choice of a text completion, or a piece of it.
public struct TextCompletionChoice: CompletionChoice {
    /// The `object` of a body of such choices.
    public static let object = "text_completion"

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
