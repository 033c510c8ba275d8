/// Scores moved as another machine's kernels move them (``SimulatedMachine``): every score of a row
/// by a pseudo-random amount between −``scale`` and ``scale`` logits, fixed by the seed, the row's
/// position, the token there and the token scored. A token therefore gets the same scores alone,
/// in a batch, drafted or teacher-forced, on one context or on a batch's sequence, and Tide's
/// bit-exact properties hold; but where two tokens are nearly tied, the greedy choice differs from
/// this machine's as it does on another CPU.
///
/// Each amount is the sum of four uniform draws (bell-shaped, bounded), so that at most positions
/// a few of a large vocabulary's scores move by nearly the bound, as between builds: the default
/// bound is the median largest difference measured between an AVX2 and an AVX-512 build of
/// llama.cpp on the bundled model (0.249 logits; docs/conversations.md).
public struct ScoreNoise: Sendable, Hashable {
    /// The bound used when none is given: the drift measured between two CPUs' builds.
    public static let defaultScale: Float = 0.25

    /// What fixes the amounts.
    public var seed: UInt64
    /// The most a score moves, in logits.
    public var scale: Float

    /// Noise of `scale` logits at most, fixed by `seed`.
    public init(seed: UInt64, scale: Float = Self.defaultScale) {
        self.seed = seed
        self.scale = scale
    }

    /// `SEED` or `SEED*SCALE`, as `TIDE_MACHINE`'s `noise=` writes it.
    init(parsing text: String) throws(SimulatedMachineError) {
        let parts = text.split(separator: "*", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let seed = UInt64(parts[0]) else {
            throw SimulatedMachineError(setting: "noise=" + text, problem: "needs a seed (a whole number), and may add *SCALE")
        }
        var scale = Self.defaultScale
        if parts.count == 2 {
            guard let given = Float(parts[1]), given.isFinite, given > 0, given <= 10 else {
                throw SimulatedMachineError(setting: "noise=" + text, problem: "needs a scale of logits above 0, at most 10")
            }
            scale = given
        }
        self.init(seed: seed, scale: scale)
    }

    /// Moves every score of the row of `token` at `position`.
    public func apply(to scores: UnsafeMutableBufferPointer<Float>, position: Int, token: Int32) {
        let key = Self.rowKey(seed: seed, position: position, token: token)
        for candidate in scores.indices { scores[candidate] += Self.amount(rowKey: key, candidate: candidate) * scale }
    }

    /// A key for one row.
    static func rowKey(seed: UInt64, position: Int, token: Int32) -> UInt64 {
        mix(mix(seed ^ 0x7469_6465_6E6F_6973) ^ mix(UInt64(bitPattern: Int64(position)) &+ 0x9E37_79B9_7F4A_7C15)
            ^ (UInt64(UInt32(bitPattern: token)) &* 0xBF58_476D_1CE4_E5B9))
    }

    /// A bell-shaped amount between −1 and 1 for `candidate` in the row of `rowKey`.
    static func amount(rowKey: UInt64, candidate: Int) -> Float {
        let bits = mix(rowKey &+ UInt64(candidate) &* 0x9E37_79B9_7F4A_7C15)
        let sum = (bits & 0xFFFF) + (bits >> 16 & 0xFFFF) + (bits >> 32 & 0xFFFF) + (bits >> 48)
        return Float(sum) / Float(2 * 0xFFFF) - 1
    }

    /// SplitMix64's finalizer: every bit of the result depends on every bit of `value`.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How a simulated machine's batches score otherwise than single tokens (``SimulatedMachine``), as
/// a GPU's batched kernels do: only rows of a decode that holds more than one of their sequence's
/// positions move — those of teacher forcing's chunks and of drafts' checks — so a reply generated
/// a token at a time is as without it, and its recording is checked within the tolerance.
public struct BatchDrift: Sendable, Hashable {
    /// The most a score moves, in logits.
    public var amount: Float
    /// Where only, and how: `nil` moves every score at every position by a pseudo-random amount
    /// up to ``amount``.
    public var placement: Placement?

    /// One token put ahead of the others at one position, by exactly the drift's amount: what a
    /// test of near-ties needs to know.
    public struct Placement: Sendable, Hashable {
        /// The position of the token scored (the row is the token's before it).
        public var scoredPosition: Int
        /// The token whose score is set to ``BatchDrift/amount`` above every other's.
        public var token: Int32

        /// `token` ahead at `scoredPosition`.
        public init(scoredPosition: Int, token: Int32) {
            self.scoredPosition = scoredPosition
            self.token = token
        }
    }

    /// A drift of up to `amount` logits at every position, or placed.
    public init(amount: Float, placement: Placement? = nil) {
        self.amount = amount
        self.placement = placement
    }

    /// Moves the batched row of `token` at `position`.
    func apply(to scores: UnsafeMutableBufferPointer<Float>, position: Int, token: Int32) {
        guard let placement else {
            ScoreNoise(seed: 0x6261_7463_6864_7269, scale: amount).apply(to: scores, position: position, token: token)
            return
        }
        let promoted = Int(placement.token)
        guard position + 1 == placement.scoredPosition, scores.indices.contains(promoted) else { return }
        var best = -Float.infinity
        for candidate in scores.indices where candidate != promoted { best = max(best, scores[candidate]) }
        scores[promoted] = best + amount
    }
}
