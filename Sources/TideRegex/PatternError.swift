/// Why a pattern was refused: a syntax error, a construct that cannot match in linear time, or a
/// pattern whose program would be too large. The offset counts Unicode scalars from 0.
public struct PatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of refusal.
    public enum Kind: Sendable, Hashable {
        /// The pattern is not a well-formed regular expression.
        case syntax
        /// The construct is valid elsewhere (PCRE, Swift `Regex`) but needs backtracking.
        case unsupported
        /// Counted repetition would make the program larger than ``RegexCompiler/maximumInstructions``,
        /// or groups nest deeper than ``RegexParser/maximumNesting``.
        case tooLarge
    }

    /// What kind of refusal.
    public var kind: Kind
    /// What is wrong, without the offset.
    public var reason: String
    /// Where, in Unicode scalars from the start of the pattern.
    public var offset: Int

    /// An error.
    public init(_ kind: Kind, _ reason: String, at offset: Int) {
        self.kind = kind
        self.reason = reason
        self.offset = offset
    }

    /// The reason and where: `… is not supported: … (at offset 4)`.
    public var description: String { "\(reason) (at offset \(offset))" }
}
