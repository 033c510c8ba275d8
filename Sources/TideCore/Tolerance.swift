/// How far a recorded token's score may fall behind the model's own choice and still be confirmed
/// by teacher forcing.
///
/// Two builds of llama.cpp (AVX2 and AVX-512 kernels, a CPU and a GPU), or a batched decode and a
/// decode of one token, give a position scores that differ in their last bits; where the two best
/// tokens are nearly tied, the greedy choice can then differ between machines. The rule: at each
/// position the sampler — in the same state, with the same random draw — chooses the recorded
/// token once that token's score (after the hooks' adjustments) is raised by at most the
/// tolerance. Under greedy decoding that is "the recorded token's score is within the tolerance
/// of the best"; under a seeded draw it widens the recorded token's share of the draw. A raise
/// above 0 is a **near-tie**, and its size the **margin**. A tolerance of 0 is the exact rule:
/// the recorded token must be the choice itself.
public enum Tolerance {
    /// The default tolerance, in logits. Measured with `tide bench --only score-drift` (docs/conversations.md
    /// has the distribution): between llama.cpp's AVX2 and AVX-512 kernels a score of the bundled
    /// model moves by up to 1.02, and the best token changed at 46 of 2,048 positions, the recorded
    /// token needing a margin of at most 0.48; Gemma 3's Q4_K_M batches against single tokens, 10
    /// of 1,024, at most 0.27. A tolerance of 1 confirms all of them with room to spare, and is far
    /// below the gap a word edited into a transcript leaves (several logits).
    public static let standard = 1.0

    /// Bisection steps that measure a margin: it is known to within the tolerance / 2^steps.
    static let bisectionSteps = 12

    /// The smallest raise of the expected token's score, at most `tolerance`, for which
    /// `choosing(raise)` — the sampler's choice, from its state before the position, with the
    /// expected token's score raised that much — is `expected`; `nil` when even `tolerance` is
    /// not enough. Call it after the choice without a raise was another token. The margin is found
    /// by bisection between 0 and `tolerance`, to within `tolerance / 4096`: the least raise that
    /// suffices where the sampler's choice moves towards a token as its score rises (as greedy
    /// decoding's does); where a raise reorders a random draw's candidates, a raise that suffices,
    /// not always the least.
    public static func margin<Token: Equatable>(of expected: Token, within tolerance: Double,
                                               choosing: (Float) throws -> Token?) rethrows -> Float? {
        let limit = Float(tolerance)
        guard limit > 0, try choosing(limit) == expected else { return nil }
        var low: Float = 0
        var high = limit
        for _ in 0..<bisectionSteps {
            let middle = (low + high) / 2
            if try choosing(middle) == expected { high = middle } else { low = middle }
        }
        return high
    }

    /// The tolerances a user may give (`--tolerance`, `@tolerance`): up to 10 logits, a
    /// 22,000-fold difference in probability, which is no near-tie.
    public static let range = 0...10.0

    /// What a tolerance must be, for error messages.
    public static let requirement = "a number of logits from 0 (exact) to 10"
}

/// The near-ties of a reply confirmed within the tolerance: how many recorded tokens needed a
/// raise, and the largest raise any of them needed.
public struct NearTies: Sendable, Hashable, Codable {
    /// Positions whose recorded token was not the choice itself, but within the tolerance.
    public private(set) var count = 0
    /// The largest margin among them, in logits.
    public private(set) var largestMargin: Float = 0

    /// None yet.
    public init() {}

    /// `count` near-ties, the largest of margin `largestMargin`.
    public init(count: Int, largestMargin: Float) {
        self.count = count
        self.largestMargin = largestMargin
    }

    /// Counts a near-tie of `margin`.
    public mutating func add(_ margin: Float) {
        count += 1
        largestMargin = max(largestMargin, margin)
    }

    /// The largest margin as reports print it: to a thousandth of a logit.
    public var printedMargin: String {
        largestMargin < 0.0005 ? "< 0.001" : "\((Double(largestMargin) * 1000).rounded() / 1000)"
    }
}
