/// The body of `POST /v1/chat/completions`, as OpenAI defines it, with the sampling fields
/// llama.cpp-based servers add (`top_k`, `min_p`, `repeat_penalty`).
public struct ChatCompletionRequest: Codable, Sendable, Hashable {
    /// One message of the conversation.
    public struct Message: Codable, Sendable, Hashable {
        public var role: String
        public var content: String

        public init(role: String, content: String) {
            self.role = role
            self.content = content
        }
    }

    public var model: String
    public var messages: [Message]
    public var stream: Bool?
    public var temperature: Double?
    public var topP: Double?
    public var topK: Int?
    public var minP: Double?
    public var repeatPenalty: Double?
    public var maxTokens: Int?
    public var seed: Int?
    /// A string or a list of strings on the wire.
    public var stop: [String]?

    enum CodingKeys: String, CodingKey {
        case model, messages, stream, temperature, seed, stop
        case topP = "top_p", topK = "top_k", minP = "min_p", repeatPenalty = "repeat_penalty", maxTokens = "max_tokens"
    }

    /// A request.
    public init(model: String, messages: [Message], stream: Bool? = nil) {
        self.model = model
        self.messages = messages
        self.stream = stream
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        model = try container.decode(String.self, forKey: .model)
        messages = try container.decode([Message].self, forKey: .messages)
        stream = try container.decodeIfPresent(Bool.self, forKey: .stream)
        temperature = try container.decodeIfPresent(Double.self, forKey: .temperature)
        topP = try container.decodeIfPresent(Double.self, forKey: .topP)
        topK = try container.decodeIfPresent(Int.self, forKey: .topK)
        minP = try container.decodeIfPresent(Double.self, forKey: .minP)
        repeatPenalty = try container.decodeIfPresent(Double.self, forKey: .repeatPenalty)
        maxTokens = try container.decodeIfPresent(Int.self, forKey: .maxTokens)
        seed = try container.decodeIfPresent(Int.self, forKey: .seed)
        if let single = try? container.decodeIfPresent(String.self, forKey: .stop) {
            stop = [single]
        } else {
            stop = try container.decodeIfPresent([String].self, forKey: .stop)
        }
    }
}
