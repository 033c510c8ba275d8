/// One `data:` event of a streamed chat completion (`object: chat.completion.chunk`).
public typealias ChatCompletionChunk = CompletionBody<ChatCompletionChunkChoice>

/// What one choice of a streamed chat completion adds.
public struct ChatCompletionChunkChoice: CompletionChoice {
    /// The `object` of a body of such choices.
    public static let object = "chat.completion.chunk"

    /// The new part of the message.
    public struct Delta: Codable, Sendable, Hashable {
        public var role: String?
        public var content: String?
        /// Pieces of the reply's tool calls.
        public var toolCalls: [WireToolCallDelta]?
        /// The next piece of a thinking model's reasoning (`reasoning_content`).
        public var reasoningContent: String?

        enum CodingKeys: String, CodingKey { case role, content, toolCalls = "tool_calls", reasoningContent = "reasoning_content" }

        public init(role: String? = nil, content: String? = nil, toolCalls: [WireToolCallDelta]? = nil,
                    reasoningContent: String? = nil) {
            self.role = role
            self.content = content
            self.toolCalls = toolCalls
            self.reasoningContent = reasoningContent
        }
    }

    public var index: Int
    public var delta: Delta
    /// `stop`, `length`, `tool_calls` on the last chunk of the choice.
    public var finishReason: String?
    /// The log-probabilities of the tokens of the delta's content, when the request asked for them.
    public var logprobs: ChatLogprobs?

    enum CodingKeys: String, CodingKey {
        case index, delta, logprobs
        case finishReason = "finish_reason"
    }

    public init(index: Int = 0, delta: Delta, finishReason: String? = nil, logprobs: ChatLogprobs? = nil) {
        self.index = index
        self.delta = delta
        self.finishReason = finishReason
        self.logprobs = logprobs
    }
}

/// Token counts of a completion.
public struct Usage: Codable, Sendable, Hashable {
    public var promptTokens: Int
    public var completionTokens: Int
    public var totalTokens: Int
    /// How many of the prompt's tokens were found in the cache (OpenAI's
    /// `prompt_tokens_details.cached_tokens`); absent from servers that do not say.
    public var promptTokensDetails: PromptTokensDetails?

    /// The breakdown of the prompt's tokens.
    public struct PromptTokensDetails: Codable, Sendable, Hashable {
        /// Prompt tokens already in the cache, not evaluated again; absent from servers that
        /// send other details only.
        public var cachedTokens: Int?

        enum CodingKeys: String, CodingKey { case cachedTokens = "cached_tokens" }

        public init(cachedTokens: Int?) { self.cachedTokens = cachedTokens }
    }

    enum CodingKeys: String, CodingKey {
        case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", totalTokens = "total_tokens"
        case promptTokensDetails = "prompt_tokens_details"
    }

    public init(promptTokens: Int, completionTokens: Int, cachedTokens: Int? = nil) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        totalTokens = promptTokens + completionTokens
        promptTokensDetails = cachedTokens.map { PromptTokensDetails(cachedTokens: $0) }
    }
}

/// An error as OpenAI-compatible servers send it: `{"error": {"message": …, "type": …}}`.
public struct APIErrorBody: Codable, Sendable, Hashable {
    public struct Detail: Codable, Sendable, Hashable {
        public var message: String
        public var type: String?
        public var code: String?
        /// The request field at fault.
        public var param: String?

        public init(message: String, type: String? = nil, code: String? = nil, param: String? = nil) {
            self.message = message
            self.type = type
            self.code = code
            self.param = param
        }
    }

    public var error: Detail

    public init(message: String, type: String, code: String? = nil, param: String? = nil) {
        error = Detail(message: message, type: type, code: code, param: param)
    }
}
