import TideCore

/// A text completion's `logprobs` in OpenAI's legacy shape, which evaluation harnesses read:
/// parallel lists of the tokens, their log-probabilities, the likeliest tokens at each position
/// (text to log-probability) and each token's offset in characters. With `echo`, the prompt's
/// tokens come first, the first of them with `null` for what nothing before it scores.
public struct TextLogprobs: Codable, Sendable, Hashable {
    public var tokens: [String]
    public var tokenLogprobs: [Double?]
    public var topLogprobs: [[String: Double]?]
    /// Where each token begins in the choice's text, in characters (Unicode code points).
    public var textOffset: [Int]

    enum CodingKeys: String, CodingKey {
        case tokens, tokenLogprobs = "token_logprobs", topLogprobs = "top_logprobs", textOffset = "text_offset"
    }

    public init(tokens: [String], tokenLogprobs: [Double?], topLogprobs: [[String: Double]?], textOffset: [Int]) {
        self.tokens = tokens
        self.tokenLogprobs = tokenLogprobs
        self.topLogprobs = topLogprobs
        self.textOffset = textOffset
    }

    /// Empty lists, to append to.
    public init() {
        self.init(tokens: [], tokenLogprobs: [], topLogprobs: [], textOffset: [])
    }

    /// Appends the tokens of `prompt` (its first unscored), counting offsets from `offset`, which
    /// moves past them.
    public mutating func append(_ prompt: PromptLogprobs, offset: inout Int) {
        if prompt.first != nil {
            append(String(decoding: prompt.firstBytes, as: UTF8.self), bytes: prompt.firstBytes, logprob: nil, top: nil, offset: &offset)
        }
        append(prompt.rest, offset: &offset)
    }

    /// Appends `scored`, counting offsets from `offset`, which moves past them.
    public mutating func append(_ scored: [TokenLogprob], offset: inout Int) {
        for position in scored {
            // Several tokens may show as one text (pieces of a character): the likeliest keeps it.
            var top: [String: Double] = [:]
            for alternative in position.top where top[alternative.text] == nil {
                top[alternative.text] = ChatLogprobs.Entry.wire(alternative.logprob)
            }
            append(position.token.text, bytes: position.token.bytes, logprob: ChatLogprobs.Entry.wire(position.token.logprob),
                   top: top, offset: &offset)
        }
    }

    private mutating func append(_ text: String, bytes: [UInt8], logprob: Double?, top: [String: Double]?, offset: inout Int) {
        tokens.append(text)
        tokenLogprobs.append(logprob)
        topLogprobs.append(top)
        textOffset.append(offset)
        // A character begins at each byte that does not continue one.
        offset += bytes.count { $0 & 0xC0 != 0x80 }
    }
}
