/// The `format` values a schema may use, each enforced by the grammar and checked by the
/// validator from the same ``FormatShape``, so both accept exactly the same strings:
/// - `date`: `YYYY-MM-DD`, month 01–12, day 01–31 whatever the month (so `2025-02-31` passes);
/// - `time`: `hh:mm:ss`, hours 00–23, minutes and seconds 00–59 (no leap second), an optional
///   fraction of 1 to 9 digits, then `Z` or an offset `+hh:mm`/`-hh:mm` (uppercase `Z` only);
/// - `date-time`: a `date`, an uppercase `T`, a `time`;
/// - `uuid`: 8-4-4-4-12 hexadecimal digits, either case, any version.
enum StringFormat: String, Sendable, CaseIterable {
    case date
    case time
    case dateTime = "date-time"
    case uuid

    /// The grammar rule holding the format (its name is the format's).
    var ruleName: String { rawValue }

    /// The rule's definition line.
    var definition: String { "\(ruleName) ::= \"\\\"\" \(shape.gbnf) \"\\\"\"" }

    /// Whether `text` has the format.
    func admits(_ text: String) -> Bool {
        shape.matches(text)
    }

    private var shape: FormatShape {
        let digit = FormatShape.range("0", "9")
        let hex = FormatShape.oneOf([(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)])
        let hour = FormatShape.choice([.sequence([.range("0", "1"), digit]), .sequence([.literal("2"), .range("0", "3")])])
        let sixty = FormatShape.sequence([.range("0", "5"), digit])
        switch self {
        case .date:
            return .sequence([
                .repeated(digit, min: 4, max: 4), .literal("-"),
                .choice([.sequence([.literal("0"), .range("1", "9")]), .sequence([.literal("1"), .range("0", "2")])]),
                .literal("-"),
                .choice([.sequence([.literal("0"), .range("1", "9")]), .sequence([.range("1", "2"), digit]),
                         .sequence([.literal("3"), .range("0", "1")])]),
            ])
        case .time:
            return .sequence([
                hour, .literal(":"), sixty, .literal(":"), sixty,
                .repeated(.sequence([.literal("."), .repeated(digit, min: 1, max: 9)]), min: 0, max: 1),
                .choice([.literal("Z"), .sequence([.oneOf([(0x2B, 0x2B), (0x2D, 0x2D)]), hour, .literal(":"), sixty])]),
            ])
        case .dateTime:
            return .sequence([StringFormat.date.shape, .literal("T"), StringFormat.time.shape])
        case .uuid:
            return .sequence([8, 4, 4, 4, 12].enumerated().flatMap { index, count in
                (index > 0 ? [FormatShape.literal("-")] : []) + [.repeated(hex, min: count, max: count)]
            })
        }
    }
}
