import TideCore

/// A reply's drafting (``DraftMode/lookup``): the lookup over its context, the policy that sizes
/// drafts, and the draft being checked.
///
/// A decoder that drafts evaluates the token it sampled last together with a draft, keeping the
/// scores of every entry; it then samples the next positions from those scores one at a time,
/// exactly as it would have after decoding each token alone, for as long as the model chooses
/// the drafted token. At the first it does not, the rest of the draft leaves the cache (the same
/// rollback a rewind uses). The reply is therefore the one decoding without a draft gives, when
/// llama.cpp scores a token of a batch as it scores it alone (``LlamaModel/scoresBatchesExactly(threads:kernel:)``).
/// Where it does not (a GPU), ``DraftMode/lookup`` does not draft, and ``DraftMode/always`` takes
/// each drafted position's token as the sampler chooses it from the batch's scores: the reply
/// differs from one decoded a token at a time only where the batch's drift reorders a near-tie,
/// and is the same from one run to the next, its drafts being sized by the context alone.
struct Drafter {
    private var lookup: PromptLookup
    private var policy: DraftPolicy
    private(set) var statistics = DraftStatistics()
    /// The draft in the cache after the token before it; its scores are being used.
    private var draft: [Int32] = []
    /// The batch entry whose scores give the next position: entry 0 is the token before the draft.
    private(set) var index = 0
    /// Whether a draft is being checked.
    private(set) var isChecking = false
    /// How long the decode of the draft being checked took.
    private var checkSeconds = 0.0
    /// The time a decode of one token takes, averaged over the recent ones; `nil` before the first.
    private var singleSeconds: Double?
    /// The reply's tokens so far.
    private var tokens = 0
    /// What a check costs here: measured when a draft is first found (``measureCosts``).
    private var costs: CheckCosts?
    private let measureCosts: () -> CheckCosts
    /// Whether the costs are given (``SimulatedMachine/checkCosts``): then a check is taken to
    /// cost what they say, not what the clock says, so that drafting decides alike on any machine.
    private let costsAreGiven: Bool
    /// Whether it drafts whenever there is a draft, whatever a check costs (``DraftMode/always``).
    let always: Bool
    /// Whether the backend's batches score exactly as single tokens: asked once, with the first
    /// draft found, since it may probe the model. ``DraftMode/lookup`` drafts only where they do.
    private let batchesAreExact: () -> Bool
    /// Whether drafting found this reply's backend unfit for ``DraftMode/lookup``.
    private var stopped = false

    /// Drafting for a reply to `prompt`, `always` (``DraftMode/always``) or where a check pays
    /// and batches are exact; `costs` gives what checks cost on this machine, and `exact` whether
    /// its batches score as single tokens, each called once, when there is a first draft to size.
    init(prompt: [Int32], always: Bool, costsAreGiven: Bool, exact: @escaping () -> Bool, costs: @escaping () -> CheckCosts) {
        lookup = PromptLookup(prompt: prompt)
        policy = always ? .always : DraftPolicy()
        self.always = always
        self.costsAreGiven = costsAreGiven
        batchesAreExact = exact
        measureCosts = costs
    }

    /// The draft to evaluate after `token` (which the reply has just kept), at most `limit`
    /// tokens; empty when there is none, drafting pauses, or the reply cannot afford its check.
    mutating func nextDraft(after token: Int32, limit: Int) -> [Int32] {
        lookup.append(token)
        tokens += 1
        let most = stopped ? 0 : min(policy.nextLength(), limit)
        let found = most > 0 ? Array(lookup.draft(limit: most, minimumMatch: policy.matchLength)) : []
        if !found.isEmpty, costs == nil, !always, !batchesAreExact() {
            stopped = true
        }
        if found.isEmpty || stopped {
            draft = []
        } else {
            let costs = self.costs ?? measureCosts()
            self.costs = costs
            draft = Array(found.prefix(policy.affordableLength(most: found.count, tokens: tokens, costs: costs)))
        }
        index = 0
        isChecking = !draft.isEmpty
        return draft
    }

    /// Records how many seconds the decode of the token before the draft took: with the draft when
    /// there was one, else without.
    mutating func timed(_ seconds: Double) {
        if isChecking {
            checkSeconds = seconds
        } else {
            singleSeconds = singleSeconds.map { 0.8 * $0 + 0.2 * seconds } ?? seconds
        }
    }

    /// Records the token sampled from entry ``index``'s scores (`nil` for anything but a token).
    /// Returns `true` when it is the drafted one, whose scores are the next entry's; otherwise
    /// the check ends, and the draft's entries after ``index`` must leave the cache.
    mutating func check(_ token: Int32?) -> Bool {
        guard isChecking else { return false }
        if let token, index < draft.count, token == draft[index] {
            lookup.append(token)
            tokens += 1
            index += 1
            return true
        }
        finish()
        return false
    }

    /// Ends the check in progress, counting its accepted tokens.
    mutating func finish() {
        guard isChecking else { return }
        isChecking = false
        statistics.verifications += 1
        statistics.drafted += draft.count
        statistics.accepted += index
        // Before any single decode is timed, a chunk is taken to cost what the probe measured.
        let predicted = costs ?? CheckCosts(chunks: [], costs: [])
        let measured = costsAreGiven ? nil : singleSeconds.map { checkSeconds / $0 }
        let cost = measured ?? predicted.cost(ofChunk: draft.count + 1)
        policy.record(drafted: draft.count, accepted: index, cost: cost, costs: predicted)
    }

    /// A rewind to a context of `count` tokens: the check ends, and the lookup forgets the rest.
    mutating func rewind(toContextLength count: Int) {
        finish()
        lookup.truncate(to: count)
    }

    /// The statistics, `nil` while no draft was checked.
    var outcome: DraftStatistics? { statistics.verifications == 0 ? nil : statistics }
}
