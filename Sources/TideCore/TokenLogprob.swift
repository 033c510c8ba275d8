#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A token and its log-probability: the natural log of its probability in the softmax of the
/// scores the model gave its position, after the plugins' `on_logits` adjustments and before the
/// sampler's stages (temperature, top-k, penalties, a format's grammar), as llama-server's
/// `n_probs` reports them by default.
public struct ScoredToken: Sendable, Hashable, Codable {
    /// The token's id in the model's vocabulary.
    public var id: Int32
    /// Its text's bytes (part of a UTF-8 character, for some tokens).
    public var bytes: [UInt8]
    /// The natural log of its probability (0 is certain; `-infinity` for a banned token).
    public var logprob: Double

    /// A scored token.
    public init(id: Int32, bytes: [UInt8], logprob: Double) {
        self.id = id
        self.bytes = bytes
        self.logprob = logprob
    }

    /// Its text, with any incomplete UTF-8 character replaced (U+FFFD).
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// One position of a reply or a prompt, scored: the token there and the likeliest at it.
public struct TokenLogprob: Sendable, Hashable, Codable {
    /// The token at the position.
    public var token: ScoredToken
    /// The likeliest tokens at the position, best first: as many as the reply asked for
    /// (``GenerationParameters/logprobs``), the token itself among them when it is one of them.
    public var top: [ScoredToken]

    /// A scored position.
    public init(token: ScoredToken, top: [ScoredToken]) {
        self.token = token
        self.top = top
    }
}

/// The prompt's tokens scored by the model, each given those before it: what an evaluation
/// scores a text's likelihood by (`echo` with `logprobs` on `/v1/completions`).
public struct PromptLogprobs: Sendable, Hashable, Codable {
    /// The prompt's first token, which nothing before it scores; `nil` for an empty prompt.
    public var first: Int32?
    /// The first token's text's bytes.
    public var firstBytes: [UInt8]
    /// The prompt's other tokens, in order, each scored.
    public var rest: [TokenLogprob]

    /// A scored prompt.
    public init(first: Int32?, firstBytes: [UInt8], rest: [TokenLogprob]) {
        self.first = first
        self.firstBytes = firstBytes
        self.rest = rest
    }
}

extension Array where Element == TokenLogprob {
    /// The mean log-probability of the tokens; `nil` for none.
    public var meanLogprob: Double? {
        isEmpty ? nil : reduce(0) { $0 + $1.token.logprob } / Double(count)
    }

    /// The perplexity of the tokens under the model: the exponential of minus their mean
    /// log-probability (1 when the model was certain of each; `nil` for none).
    public var perplexity: Double? { meanLogprob.map { exp(-$0) } }
}
