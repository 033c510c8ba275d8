/// A JSON Schema checked and turned into a grammar, with a validator.
///
/// Supported keywords: `type` (one or a list), `properties`, `required`, `additionalProperties`,
/// `enum`, `const`, `items` (one schema), `minItems`, `maxItems`, `minLength`, `maxLength`,
/// `pattern` (see ``PatternTranslator`` for the subset), `format` (`date`, `time`, `date-time`,
/// `uuid`; see ``StringFormat``), `anyOf`, `oneOf` (branches must be provably disjoint; see
/// ``OneOfCheck``), `$ref` (`#`, `#/$defs/…`, `#/definitions/…` or any `#/…` pointer to a
/// subschema of the schema resource it is written in: the innermost subschema with an `$id`
/// around it, else the document), `$defs`/`definitions`, and `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum` on integers only. Annotations (`title`, `description`, `$schema`, `$id`,
/// `$comment`, `examples`, `default`, `readOnly`, `writeOnly`, `deprecated`) are ignored and
/// `true`/`false` schemas work. Anything else is refused with a ``SchemaError``.
///
/// Limits: subschemas nest at most 64 deep; lengths and item counts are at most 1000; the
/// grammar is at most ``maximumGrammarLength`` bytes.
public struct JSONSchema: Sendable {
    /// The largest grammar a schema may produce: 256 KiB (262,144 bytes).
    public static let maximumGrammarLength = 262_144

    private let nodes: [SchemaNode]

    /// A grammar, in GBNF, whose `root` rule accepts only JSON documents valid against the
    /// schema (it is sound, not complete: it never emits members `additionalProperties` leaves
    /// open unless that is `true` or a schema, puts members in the schema's order, bounds white
    /// space and digit counts, and may leave out values it cannot write compactly).
    public let grammar: Grammar

    /// Checks every keyword of `value`, resolves every `$ref` and builds the grammar, so that
    /// nothing can fail afterwards.
    public init(_ value: JSONValue) throws(SchemaError) {
        let nodes = try SchemaReader.read(value)
        var oneOf = OneOfCheck(nodes: nodes)
        try oneOf.check()
        var impossible = Set<Int>()
        while true {
            let (text, rules) = try GrammarBuilder.build(nodes, impossible: impossible)
            if text.utf8.count > Self.maximumGrammarLength { throw Self.tooLarge(text.utf8.count) }
            let parsed: ParsedGrammar
            do {
                parsed = try GrammarParser.parse(text, branching: nil)
            } catch {
                throw SchemaError("", nil, "the grammar built for this schema was refused (\(error)); this is a bug in "
                                  + "TideFormat, please report it with the schema")
            }
            let graph = GrammarGraph(parsed)
            let widest = graph.expansion(cap: GrammarParser.maximumBranching + 1).widest
            if widest.width > GrammarParser.maximumBranching {
                throw SchemaError("", nil, "the grammar for this schema would make llama.cpp follow more than "
                                  + "\(GrammarParser.maximumBranching) alternatives at once (at its rule "
                                  + "'\(parsed.names[widest.rule])'); simplify the schema (fewer optional properties, "
                                  + "smaller enums, fewer anyOf branches)")
            }
            let productive = graph.productiveRules(count: parsed.rules.count)
            let symbols = Dictionary(uniqueKeysWithValues: parsed.names.enumerated().map { ($1, $0) })
            let dead = rules.filter { !productive[symbols[$0.value]!] }.map(\.key)
            if dead.isEmpty {
                self.nodes = nodes
                grammar = Grammar(checked: text)
                return
            }
            impossible.formUnion(dead)
        }
    }

    /// The error of a schema whose grammar would be `size` bytes (or more, when `atLeast`).
    static func tooLarge(_ size: Int, atLeast: Bool = false) -> SchemaError {
        SchemaError("", nil, "the grammar for this schema would be \(atLeast ? "over " : "")\(size) bytes, over the limit of "
                    + "\(maximumGrammarLength); simplify the schema (fewer optional properties, smaller enums)")
    }

    /// Every way `value` fails the schema; empty when it is valid.
    public func violations(of value: JSONValue) -> [SchemaViolation] {
        SchemaValidator(nodes: nodes).violations(of: value, against: 0)
    }
}
