import Foundation
import TideCore

/// A position's scores read as log-probabilities: the log of the softmax's normaliser over the
/// whole vocabulary, and the likeliest tokens. A token's log-probability is then its score less
/// the normaliser.
///
/// The normaliser takes one vector pass for the best score and one that sums the exponentials of
/// the scores, 16 at a time by a vector exponential (``exponential(_:)``), skipping a run of 256
/// whose scores all lie further than ``reach`` below it: each of those adds less than e⁻⁴⁰ of the
/// best's share, so that a whole vocabulary of them moves a log-probability by less than 1e-12.
/// The sum is kept in single precision within a run and in double across runs: a
/// log-probability is exact to a few millionths, where llama.cpp's own scores agree with another
/// build's to about a thousandth.
struct LogSoftmax {
    /// log Σ exp(score), over every token.
    let normaliser: Double
    /// The likeliest tokens, best first.
    let top: [(id: Int32, logit: Float)]

    /// The distribution of the `count` scores at `scores`, with its `top` likeliest tokens.
    init(_ scores: UnsafePointer<Float>, count: Int, top: Int) {
        let best = TopScores.maximum(scores, from: 0, to: count)
        normaliser = Double(best) + log(Self.exponentialSum(scores, count: count, best: best))
        self.top = TopScores.best(top, of: scores, count: count)
    }

    /// Σ exp(score − best) over the `count` scores at `scores`, a run of 256 whose maximum lies
    /// beyond ``reach`` skipped (found by ``TopScores/maximum(_:from:to:)``, which stays in vector
    /// registers where a comparison's `any` would not).
    static func exponentialSum(_ scores: UnsafePointer<Float>, count: Int, best: Float) -> Double {
        let lanes = SIMD16<Float>.scalarCount
        let top = SIMD16<Float>(repeating: best)
        var sum = 0.0
        var start = 0
        while start + lanes <= count {
            let end = min(start + 256, count / lanes * lanes)
            if TopScores.maximum(scores, from: start, to: end) > best - reach {
                // At most 16 blocks: single precision holds the run's sum to a few parts in 10⁷.
                var run = SIMD16<Float>()
                for index in stride(from: start, to: end, by: lanes) {
                    run += exponential(UnsafeRawPointer(scores + index).loadUnaligned(as: SIMD16<Float>.self) - top)
                }
                sum += Double(run.sum())
            }
            start = end
        }
        for index in start..<count { sum += Double(expf(scores[index] - best)) }
        return sum
    }

    /// eˣ in each lane, for x ≤ 0: 2ⁿ·eʳ, n the nearest integer to x·log₂e, r = x − n·ln 2 (ln 2
    /// in two parts, so that r is exact), eʳ by its Taylor polynomial of degree 7 (relative error
    /// below 1e-7 for |r| ≤ ln 2 / 2). A lane below −87 (a banned token's −∞) gives e⁻⁸⁷, about
    /// 1.6e-38, rather than 0.
    static func exponential(_ x: SIMD16<Float>) -> SIMD16<Float> {
        let x = x.replacing(with: -87, where: x .< -87)
        // Adding 1.5·2²³ rounds to an integer in the low bits of the sum's representation.
        let magic: Float = 12_582_912
        let shifted = x * 1.442_695_04 + magic
        let n = shifted - magic
        let r = x - n * 0.693_359_375 + n * 2.121_944_4e-4
        var p = SIMD16<Float>(repeating: 1.0 / 5040)
        p = p * r + 1.0 / 720
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        let exponent = unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- Int32(bitPattern: magic.bitPattern) &+ 127
        return p * unsafeBitCast(exponent &<< 23, to: SIMD16<Float>.self)
    }

    /// How far below the best score a block of scores must lie to be left out of the normaliser.
    static let reach: Float = 40

    /// `token`, whose score is `logit`, with its log-probability and the likeliest tokens'.
    func scored(_ token: Int32, logit: Float, model: LlamaModel) -> TokenLogprob {
        TokenLogprob(token: ScoredToken(id: token, bytes: model.tokenBytes(token), logprob: Double(logit) - normaliser),
                     top: top.map { ScoredToken(id: $0.id, bytes: model.tokenBytes($0.id), logprob: Double($0.logit) - normaliser) })
    }
}
