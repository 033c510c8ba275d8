/// A kind of check on a reply (`contains`, `tool-args`, `judge`, … and `lua` for `expect-lua:`),
/// declared once in ``CheckKind/all``: its name, how its argument is written, what it needs
/// before the reply is made, and what its argument may not be. The parser, the printer, the
/// mapping of named files and the error messages read these declarations; `tide run` evaluates
/// each kind by its name.
public struct CheckKind: Sendable, Hashable, CustomStringConvertible {
    /// The name a script writes after `expect:` (`icontains`, `tool-args`; `lua` for `expect-lua:`).
    public let name: String
    /// How the argument is written.
    public let form: ArgumentForm
    /// What the reply must be made with, or what must be ready beside it.
    public let needs: CheckNeeds
    /// Why a written argument cannot be checked, read as the script is: a message and, where
    /// the problem has one, the offset (in Unicode scalars) of where it is in the argument.
    let problem: @Sendable (String) -> (message: String, offset: Int?)?

    /// A kind of check.
    init(_ name: String, _ form: ArgumentForm, needs: CheckNeeds = [],
         problem: @escaping @Sendable (String) -> (message: String, offset: Int?)? = { _ in nil }) {
        self.name = name
        self.form = form
        self.needs = needs
        self.problem = problem
    }

    public var description: String { name }

    public static func == (lhs: CheckKind, rhs: CheckKind) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The kind a script names after `expect:`, if there is one (`lua` is written `expect-lua:`).
    public static func named(_ name: String) -> CheckKind? {
        all.first { $0.name == name && $0.form != .luaExpression }
    }

    /// The kinds a script may name after `expect:`, as an error message lists them.
    static var listed: String {
        let named = all.filter { $0.form != .luaExpression }
        let folded = named.filter { kind in named.contains { $0.name == "i" + kind.name } }
        let rest = named.filter { kind in !folded.contains(kind) && !folded.contains { "i" + $0.name == kind.name } }
        return folded.map(\.name).joined(separator: ", ") + " (each also with i- to ignore case), "
            + rest.dropLast().map(\.name).joined(separator: ", ") + " or " + (rest.last?.name ?? "")
    }
}

/// How a check's argument is written after its name.
public enum ArgumentForm: Sendable, Hashable {
    /// None.
    case none
    /// A quoted string or the rest of the line; printed quoted. `what` names it in errors.
    case text(what: String)
    /// A quoted string or the rest of the line; printed bare where it reads back the same.
    case word(what: String)
    /// Quoted strings or bare words, one or more.
    case texts(what: String)
    /// A whole-number bound (`<= 200`, `10..200`), then the unit, when there is one.
    case count(unit: String?)
    /// A bound on a measured number (`<= 20`, `> -2.5`, `1.5..20`).
    case measure
    /// A bound on a cosine similarity: a measure within [-1, 1].
    case similarity
    /// A quoted text, then a similarity bound.
    case textAndSimilarity
    /// A JSON schema's file, relative to the script's folder: a file the script names.
    case schemaFile
    /// A JSON schema written inline (`{…}`), or its file as ``schemaFile``.
    case schema
    /// A Lua expression, written after `expect-lua:` on the line or in a block.
    case luaExpression

    /// Whether a ``schema`` argument is written inline (`{…}`) rather than naming its file.
    public static func isInline(schema: String) -> Bool { schema.hasPrefix("{") }
}

/// What a check needs before the reply is made, or beside it.
public struct CheckNeeds: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The log-probabilities of the reply's tokens: the reply is made with them.
    public static let logprobs = CheckNeeds(rawValue: 1)
    /// An embedding model, to compare meanings.
    public static let embeddings = CheckNeeds(rawValue: 2)
    /// A judge model.
    public static let judge = CheckNeeds(rawValue: 4)
    /// A reply generated now, since it measures how fast: teacher forcing is skipped.
    public static let speed = CheckNeeds(rawValue: 8)
    /// The reply recorded for the turn.
    public static let recorded = CheckNeeds(rawValue: 16)
}

/// A check's argument, as read.
public enum CheckArgument: Sendable, Hashable {
    case none
    /// A text: the text to find, a pattern, a stop reason, a schema or its file, a tool's name,
    /// a rubric, a Lua expression.
    case text(String)
    /// Texts to find.
    case texts([String])
    /// A bound on a count.
    case count(CountBound)
    /// A bound on a measure.
    case measure(MeasureBound)
    /// A text and a bound on its similarity to the reply.
    case textAndMeasure(String, MeasureBound)

    /// The text, if the argument has one.
    public var text: String? {
        switch self {
        case .text(let text), .textAndMeasure(let text, _): text
        default: nil
        }
    }
}
