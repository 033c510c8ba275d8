/// A parsed regular expression: the tree ``RegexParser`` builds and ``RegexCompiler`` compiles.
///
/// Inline flags are already applied: a literal says whether it ignores case, a dot whether it
/// matches a newline, an anchor whether it is a line or a text anchor. So a node means the same
/// wherever it stands, and a tree can be translated to another formalism (such as a grammar)
/// without knowing the flags.
public indirect enum RegexNode: Sendable, Hashable {
    /// Matches the empty string (an empty pattern or an empty alternative).
    case empty
    /// One Unicode scalar; with `ignoringCase`, any scalar with the same simple case folding.
    case literal(Unicode.Scalar, ignoringCase: Bool)
    /// `.`: any scalar, or any but `\n` unless `(?s)` is on.
    case dot(matchesNewline: Bool)
    /// A set of scalars: `[a-z]`, `\d`, `[^\s,]`.
    case characterClass(CharacterClass)
    /// A zero-width test of the position: `^`, `$`, `\A`, `\z`, `\Z`, `\b`, `\B`.
    case assertion(Assertion)
    /// `( … )`, `(?<name> … )` (capturing) or `(?: … )` (grouping only).
    case group(RegexNode, capture: Capture?)
    /// Nodes matched one after the other.
    case concatenation([RegexNode])
    /// `a|b|c`: the first alternative that leads to a match is preferred.
    case alternation([RegexNode])
    /// A quantified node: `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, and their lazy forms.
    case repetition(Repetition)
}

/// A capturing group's number (1 for the first opening parenthesis) and name, if any.
public struct Capture: Sendable, Hashable {
    /// The group's number, counting opening parentheses of capturing groups from 1.
    public var index: Int
    /// The name given by `(?<name> … )`.
    public var name: String?

    /// A capture.
    public init(index: Int, name: String? = nil) {
        self.index = index
        self.name = name
    }
}

/// A quantifier applied to a node.
public struct Repetition: Sendable, Hashable {
    /// The node repeated.
    public var node: RegexNode
    /// The least number of times.
    public var min: Int
    /// The most number of times, or `nil` for no limit.
    public var max: Int?
    /// Whether more repetitions are preferred (`*`) or fewer (`*?`). This only changes which
    /// match is reported, never the cost of finding it.
    public var greedy: Bool

    /// A repetition.
    public init(_ node: RegexNode, min: Int, max: Int?, greedy: Bool = true) {
        self.node = node
        self.min = min
        self.max = max
        self.greedy = greedy
    }
}

/// The zero-width assertions.
public enum Assertion: Sendable, Hashable {
    /// `\A`, or `^` without `(?m)`: the start of the text.
    case startOfText
    /// `\z`, or `$` without `(?m)` (as in Swift's `Regex`; PCRE's `$` is `\Z`): the end of the text.
    case endOfText
    /// `\Z`: the end of the text, or just before a final `\n`.
    case endOfTextOrBeforeFinalNewline
    /// `^` with `(?m)`: the start of the text or just after a `\n`.
    case startOfLine
    /// `$` with `(?m)`: the end of the text or just before a `\n`.
    case endOfLine
    /// `\b`: between a word scalar (`\w`) and a non-word scalar or an end of the text.
    case wordBoundary
    /// `\B`: not at a word boundary.
    case notWordBoundary
}

/// A set of Unicode scalars: a bracketed class such as `[^a-z\d]`, or a shorthand such as `\w`.
public struct CharacterClass: Sendable, Hashable {
    /// What the class lists; a scalar is in the class when any item holds it (before negation).
    public var items: [Item]
    /// `[^…]`: the class holds the scalars no item holds.
    public var negated: Bool
    /// `(?i)`: a scalar is also in the class when its simple case folding, or the uppercase of
    /// that, is.
    public var ignoringCase: Bool

    /// A class.
    public init(_ items: [Item], negated: Bool = false, ignoringCase: Bool = false) {
        self.items = items
        self.negated = negated
        self.ignoringCase = ignoringCase
    }

    /// One member of a class.
    public enum Item: Sendable, Hashable {
        /// The scalars from `lower` to `upper`, inclusive (a single scalar has both equal).
        case range(Unicode.Scalar, Unicode.Scalar)
        /// `\d` (or `\D` when `negated`).
        case digit(negated: Bool)
        /// `\w` (or `\W`).
        case word(negated: Bool)
        /// `\s` (or `\S`).
        case space(negated: Bool)
    }

    /// Whether `scalar` is in the class.
    public func contains(_ scalar: Unicode.Scalar) -> Bool {
        var found = holds(scalar)
        if !found && ignoringCase {
            let folded = CaseFolding.fold(scalar)
            found = holds(folded) || CaseFolding.upper(folded).map(holds) == true
        }
        return found != negated
    }

    private func holds(_ scalar: Unicode.Scalar) -> Bool {
        items.contains { item in
            switch item {
            case .range(let lower, let upper): lower <= scalar && scalar <= upper
            case .digit(let negated): ScalarKind.isDigit(scalar) != negated
            case .word(let negated): ScalarKind.isWord(scalar) != negated
            case .space(let negated): ScalarKind.isSpace(scalar) != negated
            }
        }
    }
}
