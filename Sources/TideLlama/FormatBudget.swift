import TideCore

/// The per-step policy of a reply under a format (or a required tool call) that must finish
/// within `max-tokens`: its ``BudgetSteerer`` masks the tokens that would leave the format no
/// room to close, and follows each token chosen.
final class FormatBudget: StepPolicy {
    /// The steerer, a value: a rewind point keeps a copy and puts it back.
    var steerer: BudgetSteerer

    init(_ steerer: BudgetSteerer) {
        self.steerer = steerer
    }

    var readsScores: Bool { true }

    func choosing(from scores: UnsafeMutablePointer<Float>, model: LlamaModel) {
        steerer.restrict(scores, model: model)
    }

    func chose(_ token: Int32, score: Float, model: LlamaModel) {
        steerer.accept(token, model: model)
    }
}
