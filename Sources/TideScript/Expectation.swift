/// A check on the generated reply before it: `expect: contains "Paris"`, `expect-lua: #reply < 200`.
public struct Expectation: Sendable, Hashable {
    /// `expect: not …`: passes when the check fails.
    public var negated: Bool
    /// What is checked.
    public var check: Check

    /// An expectation.
    public init(_ check: Check, negated: Bool = false) {
        self.check = check
        self.negated = negated
    }

    /// The kinds of check.
    public enum Check: Sendable, Hashable {
        /// `contains "text"` (case-sensitive) or `icontains "text"` (ignoring case).
        case contains(String, ignoringCase: Bool)
        /// `equals`, `starts-with` or `ends-with "text"` (and `iequals`, `istarts-with`,
        /// `iends-with`): the whole reply, its start or its end, without the white space around it.
        case matches(TextPlace, String, ignoringCase: Bool)
        /// `contains-any "a" "b" …` or `contains-all "a" "b" …` (and the `i` forms).
        case containsAny([String], ignoringCase: Bool)
        case containsAll([String], ignoringCase: Bool)
        /// `words BOUND`: the number of words (runs of characters between white space).
        case words(CountBound)
        /// `sentences BOUND`: the number of sentences (text ending in `.`, `!` or `?`, or at the end).
        case sentences(CountBound)
        /// `ttft BOUND ms`: the time to the first token, in milliseconds.
        case timeToFirstToken(CountBound)
        /// `rate BOUND tok/s`: the decode rate after the first token.
        case rate(CountBound)
        /// `regex "pattern"`: the reply matches the regular expression somewhere.
        case regex(String)
        /// `length BOUND`: the reply's length in characters.
        case length(CountBound)
        /// `tokens BOUND`: the number of tokens generated.
        case tokens(CountBound)
        /// `stop REASON`: the stop reason is REASON or starts with `REASON:`
        /// (`stop plugin:word-budget` matches `plugin:word-budget: 8 words`).
        case stop(String)
        /// `expect-lua: EXPRESSION`: a Lua expression, true to pass, evaluated in the plugin sandbox.
        case lua(String)
        /// `json`: the reply (without surrounding white space) is one JSON document.
        case json
        /// `json-schema FILE`: the reply is JSON valid against the schema in FILE (a relative path is
        /// from the script's folder).
        case jsonSchema(file: String)
        /// `same-as-recorded`: the reply is the one recorded for its turn (the transcript's
        /// `assistant:` turn and `@generated`, or the golden transcript's).
        case sameAsRecorded
        /// `tool-call NAME`: the reply called the tool NAME (in any of its rounds).
        case toolCall(String)
        /// `tool-args SCHEMA`: the reply called tools, and the arguments of every call are valid
        /// against the JSON schema, written inline (`{…}`) or in a file (a relative path is from
        /// the script's folder).
        case toolArguments(String)
        /// `tool-rounds BOUND`: the number of rounds of tool calls the reply made.
        case toolRounds(CountBound)
        /// `perplexity BOUND`: the reply's perplexity under the model (the exponential of minus
        /// the mean log-probability of its tokens, the model's end of the reply included when it
        /// ended it), which holds across machines better than exact words do.
        case perplexity(MeasureBound)
        /// `mean-logprob BOUND`: the mean log-probability of the reply's tokens.
        case meanLogprob(MeasureBound)
        /// `similar "text" BOUND`: the cosine similarity of the reply's meaning and the text's, as
        /// an embedding model reads them (bounds within [-1, 1]).
        case similar(String, MeasureBound)
        /// `similar-to-recorded BOUND`: the cosine similarity of the reply and the one recorded
        /// for its turn (as `same-as-recorded` finds it).
        case similarToRecorded(MeasureBound)
        /// `judge "RUBRIC"`: a judge model, reading the user turn, the reply and the rubric, finds
        /// that the reply meets the rubric.
        case judge(String)

        /// The check's name as a script writes it (`icontains`, `tool-args`; `lua` for
        /// `expect-lua:`), which the HTML report filters by.
        public var name: String {
            if case .lua = self { return "lua" }
            let printed = ScriptItem.expectation(Expectation(self)).printed.dropFirst("expect: ".count)
            return String(printed.prefix { $0 != " " })
        }

        /// Whether the check needs the log-probabilities of the reply's tokens (`perplexity`,
        /// `mean-logprob`): the reply is then made with them.
        public var needsLogprobs: Bool {
            switch self {
            case .perplexity, .meanLogprob: true
            default: false
            }
        }

        /// Whether the check compares meanings with an embedding model (`similar`, `similar-to-recorded`).
        public var needsEmbeddings: Bool {
            switch self {
            case .similar, .similarToRecorded: true
            default: false
            }
        }

        /// Whether the check measures how fast the reply was generated (`ttft`, `rate`).
        public var measuresSpeed: Bool {
            switch self {
            case .timeToFirstToken, .rate: true
            default: false
            }
        }
    }
}

/// Where a text must stand in the reply.
public enum TextPlace: String, Sendable, Hashable {
    /// The whole reply.
    case whole = "equals"
    /// Its start.
    case start = "starts-with"
    /// Its end.
    case end = "ends-with"
}

/// Inclusive bounds on a count: `<= 200`, `>= 3`, `== 8`, `10..200`.
public struct CountBound: Sendable, Hashable, CustomStringConvertible {
    /// The least allowed, if any.
    public var lower: Int?
    /// The most allowed, if any.
    public var upper: Int?

    /// Bounds (at least one of the two).
    public init(lower: Int? = nil, upper: Int? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// Whether `count` is within the bounds.
    public func contains(_ count: Int) -> Bool {
        (lower.map { count >= $0 } ?? true) && (upper.map { count <= $0 } ?? true)
    }

    public var description: String {
        switch (lower, upper) {
        case let (lower?, upper?) where lower == upper: "== \(lower)"
        case let (lower?, upper?): "\(lower)..\(upper)"
        case let (lower?, nil): ">= \(lower)"
        case let (nil, upper?): "<= \(upper)"
        case (nil, nil): ">= 0"
        }
    }
}

/// Bounds on a measured number: `<= 20`, `< 20`, `>= -2.5`, `> -2.5`, or `1.5..20` (both ends
/// included).
public struct MeasureBound: Sendable, Hashable, CustomStringConvertible {
    /// The least allowed, if any, and whether it is itself excluded.
    public var lower: Double?
    public var excludesLower = false
    /// The most allowed, if any, and whether it is itself excluded.
    public var upper: Double?
    public var excludesUpper = false

    /// Bounds (at least one of the two).
    public init(lower: Double? = nil, excludingLower: Bool = false, upper: Double? = nil, excludingUpper: Bool = false) {
        self.lower = lower
        excludesLower = excludingLower
        self.upper = upper
        excludesUpper = excludingUpper
    }

    /// Whether `value` is within the bounds.
    public func contains(_ value: Double) -> Bool {
        let aboveLower = lower.map { excludesLower ? value > $0 : value >= $0 } ?? true
        return aboveLower && (upper.map { excludesUpper ? value < $0 : value <= $0 } ?? true)
    }

    public var description: String {
        switch (lower, upper) {
        case let (lower?, upper?): "\(Self.shown(lower))..\(Self.shown(upper))"
        case let (lower?, nil): (excludesLower ? "> " : ">= ") + Self.shown(lower)
        case let (nil, upper?): (excludesUpper ? "< " : "<= ") + Self.shown(upper)
        case (nil, nil): ">= 0"
        }
    }

    /// A number as a script writes it: no `.0` on a whole one.
    private static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}
