import Foundation
import TideCore

extension Array where Element == TokenLogprob {
    /// The tokens as lines of text for a terminal: each token's log-probability and text (quoted,
    /// as Swift writes strings), then the likeliest at its position; last, their perplexity and
    /// mean log-probability. What `tide generate --logprobs` and the chat show after a reply.
    public var table: String {
        func shown(_ scored: ScoredToken) -> String {
            "\(scored.text.debugDescription) \(String(format: "%.4f", scored.logprob))"
        }
        var lines = map { position in
            let top = position.top.isEmpty ? "" : "   likeliest: " + position.top.map(shown).joined(separator: ", ")
            return String(format: "%9.4f  ", position.token.logprob) + position.token.text.debugDescription + top
        }
        if let perplexity, let meanLogprob {
            lines.append(String(format: "perplexity %.3f, mean log-probability %.4f over %d tokens", perplexity, meanLogprob, count))
        }
        return lines.joined(separator: "\n")
    }
}
