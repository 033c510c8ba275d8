import Foundation
import TideCore

/// A position's scores read as log-probabilities: the log of the softmax's normaliser over the
/// whole vocabulary, and the likeliest tokens. A token's log-probability is then its score less
/// the normaliser.
///
/// The normaliser takes one vector pass for the best score and one that sums the exponentials of
/// the scores within ``reach`` of it, 16 at a time, skipping a block whose scores are all further
/// below: each of those adds less than e⁻⁴⁰ of the best's share, so that a whole vocabulary of
/// them moves a log-probability by less than 1e-12. (Most of a vocabulary lies far below the best,
/// so an exponential of every score would be work spent on nothing.)
struct LogSoftmax {
    /// log Σ exp(score), over every token.
    let normaliser: Double
    /// The likeliest tokens, best first.
    let top: [(id: Int32, logit: Float)]

    /// The distribution of the `count` scores at `scores`, with its `top` likeliest tokens.
    init(_ scores: UnsafePointer<Float>, count: Int, top: Int) {
        let best = TopScores.best(of: scores, count: count).logit
        let floor = best - Self.reach
        let lanes = SIMD16<Float>.scalarCount
        var sum = 0.0
        var index = 0
        while index + lanes <= count {
            if any(UnsafeRawPointer(scores + index).loadUnaligned(as: SIMD16<Float>.self) .> SIMD16(repeating: floor)) {
                for lane in index..<index + lanes { sum += Double(expf(scores[lane] - best)) }
            }
            index += lanes
        }
        while index < count {
            sum += Double(expf(scores[index] - best))
            index += 1
        }
        normaliser = Double(best) + log(sum)
        self.top = TopScores.best(top, of: scores, count: count)
    }

    /// How far below the best score a block of scores must lie to be left out of the normaliser.
    static let reach: Float = 40

    /// `token`, whose score is `logit`, with its log-probability and the likeliest tokens'.
    func scored(_ token: Int32, logit: Float, model: LlamaModel) -> TokenLogprob {
        TokenLogprob(token: ScoredToken(id: token, bytes: model.tokenBytes(token), logprob: Double(logit) - normaliser),
                     top: top.map { ScoredToken(id: $0.id, bytes: model.tokenBytes($0.id), logprob: Double($0.logit) - normaliser) })
    }
}
