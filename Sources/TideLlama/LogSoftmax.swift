import Foundation
import TideCore

/// A position's scores read as log-probabilities: the log of the softmax's normaliser over the
/// whole vocabulary (one pass for the best score, one of exponentials), and the likeliest tokens.
/// A token's log-probability is then its score less the normaliser.
struct LogSoftmax {
    /// log Σ exp(score), over every token.
    let normaliser: Double
    /// The likeliest tokens, best first.
    let top: [(id: Int32, logit: Float)]

    /// The distribution of the `count` scores at `scores`, with its `top` likeliest tokens.
    init(_ scores: UnsafePointer<Float>, count: Int, top: Int) {
        let best = TopScores.best(of: scores, count: count).logit
        var sum = 0.0
        for index in 0..<count { sum += Double(expf(scores[index] - best)) }
        normaliser = Double(best) + log(sum)
        self.top = TopScores.best(top, of: scores, count: count)
    }

    /// `token`, whose score is `logit`, with its log-probability and the likeliest tokens'.
    func scored(_ token: Int32, logit: Float, model: LlamaModel) -> TokenLogprob {
        TokenLogprob(token: ScoredToken(id: token, bytes: model.tokenBytes(token), logprob: Double(logit) - normaliser),
                     top: top.map { ScoredToken(id: $0.id, bytes: model.tokenBytes($0.id), logprob: Double($0.logit) - normaliser) })
    }
}
