/// How many tokens a backend drafts before each decode (``PromptLookup``), and on how strong a
/// match, adapting to what its drafts earn. A batched decode of a token and its draft costs more
/// than decoding the token alone (how much more depends on the device, the model and its weights'
/// format: docs/speed.md), so a draft pays only when the tokens it yields (those accepted, and the
/// one sampled after them) outnumber the single decodes its chunk took.
///
/// - Drafts grow (3, 7, 15 tokens) while whole drafts are accepted and pay, and shrink when less
///   than half of one is accepted.
/// - A draft that does not pay asks for a longer match next time (from ``PromptLookup/shortestMatch``
///   up to ``PromptLookup/longestMatch`` tokens) and stops drafting for a while; the pause doubles
///   each time, and starts again from ``firstPause`` only once drafting has gained more than it
///   lost in the reply.
///
/// - A check is made only when it cannot make the reply lose more than ``lossShare`` of its
///   time: were none of its draft accepted, what the checks have gained so far, plus that share
///   of the tokens decoded so far, still covers its cost less the one token it yields
///   (``affordableLength(most:tokens:costs:)``). Its cost is predicted from ``CheckCosts``,
///   measured on this machine and model, scaled by what the reply's own checks took. A short
///   reply, or one that copies little, drafts only what it can afford; the drafts grow as the
///   accepted ones pay for longer ones.
///
/// A reply that copies nothing, or a machine whose batches are slow, is then decoded almost as
/// if drafting were off.
public struct DraftPolicy: Sendable, Hashable {
    /// The share of a reply's decoding time drafting may risk.
    public static let lossShare = 0.02

    /// The draft lengths tried, shortest first: with the token before them, chunks of 4, 8 and
    /// 16, the widths llama.cpp's CPU kernels multiply at once.
    public static let lengths = [3, 7, 15]
    /// Positions decoded without a draft after the first draft that did not pay.
    public static let firstPause = 16
    /// The longest pause.
    public static let longestPause = 512

    private var level = 0
    private var paused = 0
    private var nextPause = Self.firstPause
    /// Single decodes saved so far: tokens yielded minus the cost of their checks.
    private var gain = 0.0
    /// The shortest match a draft needs now.
    public private(set) var matchLength = PromptLookup.shortestMatch
    /// What the reply's checks took over what ``CheckCosts`` predicted, on average.
    private var costScale = 1.0

    /// A policy that starts with the shortest drafts and matches.
    public init() {}

    /// The most tokens to draft at the next decode; 0 during a pause (each call counts one
    /// position of it).
    public mutating func nextLength() -> Int {
        if paused > 0 {
            paused -= 1
            return 0
        }
        return Self.lengths[level]
    }

    /// A policy for ``DraftMode/always``: the longest drafts, on the shortest match, never paused.
    public static var always: DraftPolicy {
        var policy = DraftPolicy()
        policy.level = Self.lengths.count - 1
        policy.isFixed = true
        return policy
    }

    /// Whether the policy never changes (``always``).
    private var isFixed = false

    /// The longest draft of at most `most` tokens whose check the reply can afford after
    /// `tokens` tokens (see the type's description); 0 when none.
    public func affordableLength(most: Int, tokens: Int, costs: CheckCosts) -> Int {
        if isFixed { return most }
        let budget = gain + Self.lossShare * Double(tokens)
        var length = most
        while length > 0, costScale * costs.cost(ofChunk: length + 1) - 1 > budget { length -= 1 }
        // A draft shorter than the shortest length gains next to nothing for its check.
        return length < Self.lengths[0] ? 0 : length
    }

    /// Records that `accepted` of `drafted` tokens were accepted by a decode that took as long
    /// as `cost` decodes of a single token (`costs` predicted it).
    public mutating func record(drafted: Int, accepted: Int, cost: Double, costs: CheckCosts) {
        guard drafted > 0, !isFixed else { return }
        costScale = 0.7 * costScale + 0.3 * cost / max(costs.cost(ofChunk: drafted + 1), 1e-9)
        let earned = Double(accepted + 1) - cost
        gain += earned
        if earned < 0 {
            level = max(level - 1, 0)
            matchLength = min(matchLength + 1, PromptLookup.longestMatch)
            paused = nextPause
            nextPause = min(nextPause * 2, Self.longestPause)
            return
        }
        matchLength = max(matchLength - 1, PromptLookup.shortestMatch)
        if gain > 0 { nextPause = Self.firstPause }
        if accepted == drafted {
            level = min(level + 1, Self.lengths.count - 1)
        } else if accepted * 2 < drafted {
            level = max(level - 1, 0)
        }
    }
}

/// What one decode of a chunk of tokens (with scores at each) costs on a machine and model, in
/// decodes of a single token, measured for a few chunk sizes (the batch probe of `TideLlama`).
public struct CheckCosts: Sendable, Hashable {
    /// The chunk sizes measured, ascending.
    public let chunks: [Int]
    /// The cost of each.
    public let costs: [Double]

    /// Costs measured for `chunks` (ascending).
    public init(chunks: [Int], costs: [Double]) {
        self.chunks = chunks
        self.costs = costs
    }

    /// The cost of a chunk of `size` tokens: 1 for one token, between the sizes measured by
    /// linear interpolation, and past the largest, as much per token as the largest.
    public func cost(ofChunk size: Int) -> Double {
        var previous = (chunk: 1, cost: 1.0)
        for (chunk, cost) in zip(chunks, costs) {
            if size <= chunk {
                let share = Double(size - previous.chunk) / Double(max(chunk - previous.chunk, 1))
                return previous.cost + share * (cost - previous.cost)
            }
            previous = (chunk, cost)
        }
        return previous.cost * Double(size) / Double(previous.chunk)
    }
}
