/// The body of a chat completion that was not streamed (`object: chat.completion`).
public struct ChatCompletion: Codable, Sendable, Hashable {
    /// The one choice.
    public struct Choice: Codable, Sendable, Hashable {
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

    public var id: String
    public var object: String
    public var created: Int
    public var model: String
    public var choices: [Choice]
    public var usage: Usage

    public init(id: String, created: Int, model: String, choices: [Choice], usage: Usage) {
        self.id = id
        object = "chat.completion"
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }
}
