/// Which of the queued requests one step of a ``LlamaBatchEngine`` decodes, from how many tokens
/// each has left, oldest first.
///
/// Every single token is decoded (the next token of a reply in progress). Requests of several
/// tokens (new prompts, chunks of a recorded reply) are taken in the order they came, each that
/// fits in what is left of `budget` tokens (a shorter, later one may fill what an earlier one
/// could not); when the oldest of them holds more than `budget`, a piece of it is decoded in a
/// `llama_decode` of its own instead (a batch, or a paced piece: ``PrefillPace``), and no other
/// request of several tokens is. The oldest is always taken, so none waits for ever; the rest
/// wait for the next step, in order.
struct StepSelection: Equatable {
    /// The requests decoded together in one `llama_decode`.
    var shared: [Int] = []
    /// A request a piece of which is decoded alone, in a `llama_decode` of its own.
    var alone: Int?
    /// The requests left for the next step, in their order.
    var later: [Int] = []

    /// The selection among requests with `tokenCounts` tokens left.
    init(tokenCounts: [Int], budget: Int) {
        var left = budget
        for (index, count) in tokenCounts.enumerated() {
            if count <= 1 {
                shared.append(index)
            } else if count > budget, alone == nil, left == budget {
                alone = index
            } else if alone == nil, count <= left {
                shared.append(index)
                left -= count
            } else {
                later.append(index)
            }
        }
    }

    /// A selection given in full (for tests).
    init(shared: [Int], alone: Int? = nil, later: [Int] = []) {
        self.shared = shared
        self.alone = alone
        self.later = later
    }
}
