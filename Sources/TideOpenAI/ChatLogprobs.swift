import TideCore

/// A chat choice's `logprobs` in OpenAI's shape: `{"content": [{"token", "logprob", "bytes",
/// "top_logprobs": [{"token", "logprob", "bytes"}]}]}`, one entry per token of the message
/// (or of a streamed chunk's piece of it).
public struct ChatLogprobs: Codable, Sendable, Hashable {
    /// One token of the message.
    public struct Entry: Codable, Sendable, Hashable {
        public var token: String
        public var logprob: Double
        /// The token's UTF-8 bytes (a token may hold part of a character).
        public var bytes: [UInt8]
        /// The likeliest tokens at its position, best first (`top_logprobs` of them).
        public var topLogprobs: [Alternative]

        enum CodingKeys: String, CodingKey { case token, logprob, bytes, topLogprobs = "top_logprobs" }

        public init(token: String, logprob: Double, bytes: [UInt8], topLogprobs: [Alternative]) {
            self.token = token
            self.logprob = logprob
            self.bytes = bytes
            self.topLogprobs = topLogprobs
        }

        /// `scored` on the wire.
        public init(_ scored: TokenLogprob) {
            self.init(token: scored.token.text, logprob: Self.wire(scored.token.logprob), bytes: scored.token.bytes,
                      topLogprobs: scored.top.map { Alternative(token: $0.text, logprob: Self.wire($0.logprob), bytes: $0.bytes) })
        }

        /// A log-probability as JSON can carry it: a banned token's (`-infinity`) is OpenAI's -9999.
        static func wire(_ logprob: Double) -> Double { logprob.isFinite ? logprob : Self.impossible }

        /// What OpenAI reports for a token with no chance.
        public static let impossible = -9999.0
    }

    /// One of the likeliest tokens at a position.
    public struct Alternative: Codable, Sendable, Hashable {
        public var token: String
        public var logprob: Double
        public var bytes: [UInt8]

        public init(token: String, logprob: Double, bytes: [UInt8]) {
            self.token = token
            self.logprob = logprob
            self.bytes = bytes
        }
    }

    public var content: [Entry]

    public init(content: [Entry]) {
        self.content = content
    }

    /// `tokens` on the wire.
    public init(_ tokens: [TokenLogprob]) {
        content = tokens.map(Entry.init)
    }
}
