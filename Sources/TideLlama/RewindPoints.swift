/// The per-step policy of a reply a hook may rewind: once asked to, it keeps a copy of the
/// chain's state and of the scores at each reply position, so that a position a hook took back
/// is sampled again exactly as it was first sampled, with no decode.
final class RewindPoints: StepPolicy {
    /// What sampling a reply position again needs: the scores the model gave it, before any
    /// hook, and the chain's, the grammar's and the budget's states before it was sampled.
    private struct Point {
        let logits: [Float]
        let state: SamplerChain.Snapshot
        let steerer: BudgetSteerer?
    }

    /// The most positions kept: a rewind reaches at most this many tokens back (each point holds
    /// a copy of the vocabulary's scores).
    static let maximum = 256

    private let chain: SamplerChain
    private let budget: FormatBudget?
    /// The points of the positions from ``first`` on, while ``isKeeping``.
    private var points: [Point] = []
    /// The reply position of the first kept point.
    private var first = 0
    /// Whether a point is kept at each position (``keep()``).
    private var isKeeping = false
    /// The point to sample again at the next step, after a rewind.
    private var resampling: Point?

    /// The points of `chain`'s states, and of `budget`'s, if the reply has one.
    init(chain: SamplerChain, budget: FormatBudget?) {
        self.chain = chain
        self.budget = budget
    }

    var readsScores: Bool { isKeeping || resampling != nil }

    /// Keeps a rewind point at every position from now on.
    func keep() {
        isKeeping = true
    }

    func stepBegins(_ scores: UnsafeMutablePointer<Float>, isNewPosition: Bool) {
        guard isKeeping, isNewPosition else { return }
        // Points stay aligned with positions: one that cannot be kept ends what rewinds can reach.
        if let state = chain.snapshot() {
            points.append(Point(logits: Array(UnsafeBufferPointer(start: scores, count: chain.plan.vocabularySize)), state: state,
                                steerer: budget?.steerer))
            if points.count > Self.maximum { forget(before: first + 1) }
        } else {
            forget(before: first + points.count + 1)
        }
    }

    /// Goes back to reply position `position`: the chain's state is what it was before that
    /// position was sampled, and the next step samples it again from its saved scores. Returns
    /// false when no point is kept for it.
    func rewind(to position: Int) -> Bool {
        let offset = position - first
        guard canRewind(to: position), chain.restore(points[offset].state) else { return false }
        if let steerer = points[offset].steerer { budget?.steerer = steerer }
        points.removeSubrange((offset + 1)...)
        resampling = points[offset]
        return true
    }

    /// Whether a point is kept for `position`.
    func canRewind(to position: Int) -> Bool {
        isKeeping && position >= first && position - first < points.count
    }

    /// Forgets the points of the positions before `position`.
    func forget(before position: Int) {
        let count = min(max(position - first, 0), points.count)
        points.removeFirst(count)
        first += count
    }

    /// Whether the next step samples a rewound position again (and needs no decode).
    var isResampling: Bool { resampling != nil }

    /// The saved scores of the rewound position, which the next step samples again; once.
    func takeResampledScores() -> [Float]? {
        defer { resampling = nil }
        return resampling?.logits
    }
}
