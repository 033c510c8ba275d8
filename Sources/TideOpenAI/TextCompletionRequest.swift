/// The body of `POST /v1/completions` (OpenAI's legacy completions, which llama-server also
/// serves): a prompt the model continues as plain text, with no chat template, and the fields
/// of a ``ChatCompletionRequest`` (model, stream, sampling). Fields Tide cannot honour are
/// refused with a ``RequestFieldError``: a prompt given as token ids or as several prompts,
/// `suffix`, `best_of` above 1.
public struct TextCompletionRequest: Decodable, Sendable, Hashable {
    /// The text to continue.
    public var prompt: String
    /// Whether the reply repeats the prompt before its continuation (and, with ``logprobs``,
    /// scores the prompt's tokens).
    public var echo: Bool
    /// How many of the likeliest tokens each token's log-probability comes with; `nil` for none.
    public var logprobs: Int?
    /// The rest of the request, as a chat request whose one user message is the prompt.
    public var chat: ChatCompletionRequest

    enum CodingKeys: String, CodingKey { case prompt, echo, suffix, logprobs, bestOf = "best_of" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try container.decodeUnlessOtherType(String.self, forKey: .prompt) {
            prompt = text
        } else if let texts = try? container.decode([String].self, forKey: .prompt) {
            guard texts.count == 1 else {
                throw RequestFieldError(field: "prompt", message: "prompt holds \(texts.count) prompts; send one per request: "
                                            + "Tide generates one choice per request")
            }
            prompt = texts[0]
        } else if (try? container.decode([Int].self, forKey: .prompt)) != nil
                    || (try? container.decode([[Int]].self, forKey: .prompt)) != nil {
            throw RequestFieldError(field: "prompt", message: "prompt as token ids is not supported; send the prompt as text")
        } else {
            prompt = try container.decode(String.self, forKey: .prompt)
        }
        if let suffix = try container.decodeIfPresent(String.self, forKey: .suffix), !suffix.isEmpty {
            throw RequestFieldError(field: "suffix", message: "suffix (text to insert before) is not supported; leave it out")
        }
        logprobs = try container.decodeWholeNumberIfPresent(forKey: .logprobs)
        if let bestOf = try container.decodeWholeNumberIfPresent(forKey: .bestOf), bestOf != 1 {
            throw RequestFieldError(field: "best_of", message: "best_of must be 1: Tide generates one choice per request")
        }
        echo = try container.decodeIfPresent(Bool.self, forKey: .echo) ?? false
        chat = try ChatCompletionRequest(decoding: decoder, messages: [.init(role: "user", content: prompt)])
    }
}
