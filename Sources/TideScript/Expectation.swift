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

    /// A check: its kind and its argument.
    public struct Check: Sendable, Hashable {
        /// What kind of check it is.
        public var kind: CheckKind
        /// Its argument, as the kind's ``ArgumentForm`` reads it.
        public var argument: CheckArgument

        /// A check of `kind` on `argument`.
        public init(_ kind: CheckKind, _ argument: CheckArgument = .none) {
            self.kind = kind
            self.argument = argument
        }
    }
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
