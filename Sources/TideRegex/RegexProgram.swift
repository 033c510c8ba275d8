/// One instruction of a compiled pattern. Instructions that consume a scalar advance a thread
/// to the next position; the others are followed at the same position.
enum Instruction: Sendable {
    /// Consumes exactly this scalar.
    case scalar(Unicode.Scalar)
    /// Consumes a scalar whose simple case folding is this (already folded) scalar.
    case foldedScalar(Unicode.Scalar)
    /// Consumes any scalar.
    case any
    /// Consumes any scalar but `\n`.
    case anyButNewline
    /// Consumes a scalar of the class.
    case characterClass(CharacterClass)
    /// Continues only where the assertion holds.
    case assertion(Assertion)
    /// Continues at both addresses, preferring the first.
    case split(Int, Int)
    /// Continues at the address.
    case jump(Int)
    /// Records the current position in a capture slot (2k and 2k+1 for group k; 0 and 1 for the match).
    case save(Int)
    /// The pattern has matched.
    case match
}

/// A compiled pattern: the instructions the ``PikeVM`` runs.
struct RegexProgram: Sendable {
    /// The instructions; the program starts at 0.
    var instructions: [Instruction]
    /// Capture slots: two per capturing group, plus two for the whole match.
    var slotCount: Int
    /// Whether some instruction compares case-folded scalars.
    var foldsCase: Bool
}
