/// The body of a chat completion that was not streamed (`object: chat.completion`).
public typealias ChatCompletion = CompletionBody<ChatCompletionChoice>

/// The one choice of a chat completion.
public struct ChatCompletionChoice: CompletionChoice {
    /// The `object` of a body of such choices.
    public static let object = "chat.completion"

    public var index: Int
    public var message: ChatCompletionRequest.Message
    /// `stop`, `length` or `tool_calls`.
    public var finishReason: String
    /// The message's tokens' log-probabilities, when the request asked for them.
    public var logprobs: ChatLogprobs?

    enum CodingKeys: String, CodingKey {
        case index, message, logprobs
        case finishReason = "finish_reason"
    }

    public init(index: Int = 0, message: ChatCompletionRequest.Message, finishReason: String, logprobs: ChatLogprobs? = nil) {
        self.index = index
        self.message = message
        self.finishReason = finishReason
        self.logprobs = logprobs
    }
}
