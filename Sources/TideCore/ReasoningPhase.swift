/// A thinking model's reply as it comes, until its answer begins: the reasoning block split from
/// the answer (``ReasoningSplitter``), its tokens counted, and its budget kept — once
/// `reasoning-budget` tokens are spent, the close tag's tokens are forced next.
struct ReasoningPhase {
    private var splitter: ReasoningSplitter
    /// The most reasoning tokens (``GenerationParameters/reasoningBudget``); `nil` for no limit.
    private let budget: Int?
    /// Reasoning tokens so far.
    private(set) var tokens = 0
    /// The close tag's tokens still to force, once the budget is spent.
    private var closing: [Int32]?

    init(markers: ReasoningMarkers, budget: Int?) {
        splitter = ReasoningSplitter(markers: markers)
        self.budget = budget
    }

    /// Whether the reply's tokens still go through the split: not once the answer has begun.
    var isActive: Bool { !splitter.isDone }

    /// The token the next step must be: the close tag's next one once the budget is spent
    /// (tokenized by `vocabulary`); `nil` otherwise.
    mutating func forcedToken(vocabulary: (any Vocabulary)?) -> Int32? {
        guard splitter.phase == .reasoning else { return nil }
        if closing == nil, let budget, tokens >= budget {
            closing = vocabulary?.tokens(of: "\n" + splitter.markers.close)
        }
        return closing?.first
    }

    /// Takes the token `id`, whose text is `text`, sampled where `forced` was forced: what of the
    /// text is reasoning and what is answer.
    mutating func take(_ id: Int32?, text: String, forced: Int32?) -> (reasoning: String, answer: String) {
        let phase = splitter.phase
        if let forced { closing = id == forced ? Array(closing!.dropFirst()) : nil }
        let split = splitter.append(text)
        if phase == .reasoning || splitter.phase == .reasoning { tokens += 1 }
        return split
    }

    /// The end of a reply whose answer had not begun (it ended inside its reasoning, or before its
    /// open tag was whole): the reasoning pieces still held, and the answer `ending` leaves.
    mutating func finish(_ ending: String) -> (reasoning: [String], answer: String) {
        guard splitter.phase != .answering else { return ([], ending) }
        let split = splitter.append(ending)
        let rest = splitter.finish()
        return ([split.reasoning, rest.reasoning].filter { !$0.isEmpty }, split.answer + rest.answer)
    }

    /// The reasoning so far.
    var reasoning: String { splitter.reasoning }

    /// The reasoning with its surrounding line breaks left out, as the history keeps it.
    var trimmedReasoning: String { splitter.trimmedReasoning }
}
