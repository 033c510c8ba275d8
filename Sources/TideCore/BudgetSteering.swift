/// How a reply under a format was steered to finish within `max-tokens`: from the reply position
/// where the tokens left first could not take the model's own choice, how many tokens were chosen
/// for the grammar's shortest completion instead.
public struct BudgetSteering: Sendable, Hashable, Codable {
    /// The first steered reply position (0 is the reply's first token).
    public var from: Int
    /// Positions where the model's best-scored token was set aside.
    public var tokens: Int

    /// A steering record.
    public init(from: Int, tokens: Int) {
        self.from = from
        self.tokens = tokens
    }
}
