/// Writes the GBNF for checked ``SchemaNode``s. Each subschema gets a rule named after where it
/// is (property names, `$defs` names, `-item`, `-1` for the first `anyOf` branch), sanitized to
/// `[a-zA-Z0-9-]` and made unique. Objects list the schema's properties in order, required ones
/// always, optional ones omittable, extra members (only when `additionalProperties` is `true` or
/// a schema) after them with raw keys that are none of the listed names. Subschemas in
/// `impossible` match nothing, so whatever needs them is left out.
struct GrammarBuilder {
    private let nodes: [SchemaNode]
    /// The nodes, with one `enum` at a time set aside while its values are checked.
    private var workingNodes: [SchemaNode]
    private let impossible: Set<Int>
    private var ruleNames: [Int: String] = [:]
    /// The next number to try for each base name ``uniqueName(_:)`` was asked for.
    private var nextSuffix: [String: Int] = [:]
    private var taken = JSONGrammarRules.names.union(StringFormat.allCases.map(\.ruleName)).union([Grammar.rootRule])
    private var pending: [Int] = []
    private var definitions: [String] = []
    private var shared = Set<String>()
    private var formats = Set<StringFormat>()
    /// The rule name of each node whose rule was defined.
    private(set) var definedRules: [Int: String] = [:]
    /// The length of the definitions so far, in bytes.
    private var length = 0

    /// The grammar for node 0 and the rule defined for each node.
    static func build(_ nodes: [SchemaNode], impossible: Set<Int>) throws(SchemaError) -> (text: String, rules: [Int: String]) {
        var builder = GrammarBuilder(nodes: nodes, impossible: impossible)
        guard let top = builder.reference(0, hint: "document") else {
            throw SchemaError("", nil, "no JSON document can satisfy this schema")
        }
        while let node = builder.pending.popLast() {
            try builder.define(node)
        }
        let lines = ["\(Grammar.rootRule) ::= \(top) space"] + builder.definitions
            + JSONGrammarRules.definitions(of: builder.shared.union(["space"]))
        return (lines.joined(separator: "\n") + "\n", builder.definedRules)
    }

    private init(nodes: [SchemaNode], impossible: Set<Int>) {
        self.nodes = nodes
        workingNodes = nodes
        self.impossible = impossible
    }

    /// The rule name standing for node `index` (defined later), or `nil` if it matches nothing.
    private mutating func reference(_ index: Int, hint: String) -> String? {
        var index = index
        while let target = nodes[index].reference { index = target }
        if impossible.contains(index) || nodes[index].isFalse { return nil }
        if let name = ruleNames[index] { return name }
        let segments = nodes[index].pointer.split(separator: "/")
        let definitionName = segments.count >= 2 && (segments[segments.count - 2] == "$defs"
                                                     || segments[segments.count - 2] == "definitions")
        let name = uniqueName(definitionName ? String(segments.last!) : hint)
        ruleNames[index] = name
        pending.append(index)
        return name
    }

    private mutating func uniqueName(_ hint: String) -> String {
        let cleaned = String(hint.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) ? Character(scalar) : "-"
        })
        let base = cleaned.isEmpty ? "value" : cleaned
        var name = base
        // Numbering goes on from the last number a base was given, so many names sharing one
        // base (properties whose names are all symbols) cost no rescans.
        var suffix = nextSuffix[base, default: 2]
        while taken.contains(name) {
            name = "\(base)-\(suffix)"
            suffix += 1
        }
        nextSuffix[base] = suffix
        taken.insert(name)
        return name
    }

    private mutating func use(_ rule: String) -> String {
        shared.insert(rule)
        return rule
    }

    private mutating func define(_ index: Int) throws(SchemaError) {
        let name = ruleNames[index]!
        definedRules[index] = name
        // A node with no way to match gets a rule matching nothing; the caller then marks it
        // impossible and builds again without it.
        let body = try self.body(index, name: name) ?? GBNF.characterClass([(0, 0x10FFFF)], negated: true)
        try add(name, body)
    }

    /// Appends the rule `name ::= body`, counting its length: checked as it grows, rule by rule,
    /// so a schema too large is refused before the rest of it is written.
    private mutating func add(_ name: String, _ body: String) throws(SchemaError) {
        definitions.append("\(name) ::= \(body)")
        length += name.utf8.count + body.utf8.count + 6
        if length > JSONSchema.maximumGrammarLength { throw JSONSchema.tooLarge(length, atLeast: true) }
    }

    private mutating func body(_ index: Int, name: String) throws(SchemaError) -> String? {
        let node = nodes[index]
        if let allowed = node.allowedValues {
            // Each value against the node's other keywords (against its own list, every check
            // would scan the list: quadratic in a long enum): the list is set aside in the
            // working copy of the nodes, and put back, which copies nothing once the copy exists.
            workingNodes[index].allowedValues = nil
            let valid = allowed.filter { SchemaValidator(nodes: workingNodes).violations(of: $0, against: index).isEmpty }
            workingNodes[index].allowedValues = allowed
            var seen = Set<String>()
            let texts = valid.map(\.text).filter { seen.insert($0).inserted }
            return texts.isEmpty ? nil : texts.map(GBNF.literal).joined(separator: " | ")
        }
        if let branches = node.anyOf ?? node.oneOf {
            let names = branches.enumerated().compactMap { position, branch in reference(branch, hint: "\(name)-\(position + 1)") }
            return names.isEmpty ? nil : names.joined(separator: " | ")
        }
        var types = node.types ?? Set(JSONType.allCases)
        if types.contains(.number) { types.remove(.integer) }
        var alternatives: [String] = []
        for type in JSONType.allCases where types.contains(type) {
            let alternative: String? = switch type {
            case .null: use("null")
            case .boolean: use("boolean")
            case .number: use("number")
            case .integer: integer(node)
            case .string: try string(node, name: name)
            case .array: array(node, name: name)
            case .object: try object(node, name: name)
            }
            if let alternative { alternatives.append(alternative) }
        }
        return alternatives.isEmpty ? nil : alternatives.joined(separator: " | ")
    }

    private mutating func integer(_ node: SchemaNode) -> String? {
        if node.minimum == nil && node.maximum == nil && node.exclusiveMinimum == nil && node.exclusiveMaximum == nil {
            return use("integer")
        }
        // Without a bound on one side, that side stops at 16 digits, as the plain integer rule does;
        // clamping a bound to 64 bits only leaves out integers the grammar could not write anyway.
        func clamp(_ value: Double) -> Int64 {
            value <= -9.223372036854775807e18 ? Int64.min : value >= 9.223372036854775807e18 ? Int64.max : Int64(value)
        }
        var lowest: Int64 = -9_999_999_999_999_999
        var highest: Int64 = 9_999_999_999_999_999
        if let bound = node.minimum { lowest = clamp(bound.rounded(.up)) }
        if let bound = node.exclusiveMinimum { lowest = max(lowest, clamp(bound.rounded(.down)).addingReportingOverflow(1).partialValue) }
        if let bound = node.maximum { highest = clamp(bound.rounded(.down)) }
        if let bound = node.exclusiveMaximum { highest = min(highest, clamp(bound.rounded(.up)).subtractingReportingOverflow(1).partialValue) }
        return IntegerRange.expression(from: lowest, to: highest)
    }

    private mutating func string(_ node: SchemaNode, name: String) throws(SchemaError) -> String? {
        if let format = node.format {
            if formats.insert(format).inserted { definitions.append(format.definition) }
            return format.ruleName
        }
        if let pattern = node.pattern {
            let (expression, helpers) = try PatternTranslator.translate(pattern.pattern, ruleName: uniqueName(name + "-pattern"),
                                                                         pointer: node.pointer)
            do {
                _ = try GrammarParser.parse((["root ::= \(expression)"] + helpers).joined(separator: "\n")
                                            + "\nstring-char ::= \"a\"\n")
            } catch {
                throw SchemaError(node.pointer, "pattern", "the pattern's grammar would be refused: \(error.message)")
            }
            definitions += helpers
            _ = use("string-char")
            return expression
        }
        if let maximum = node.maxLength, maximum < node.minLength { return nil }
        let count = switch (node.minLength, node.maxLength) {
        case (0, nil): "*"
        case (1, nil): "+"
        case (let min, nil): "{\(min),}"
        case (let min, let max?) where min == max: "{\(min)}"
        case (let min, let max?): "{\(min),\(max)}"
        }
        return #""\"" "# + use("string-char") + count + #" "\"""#
    }

    private mutating func array(_ node: SchemaNode, name: String) -> String? {
        if let maximum = node.maxItems, maximum < node.minItems { return nil }
        let item: String? = node.items.map { reference($0, hint: name + "-item") } ?? use("value")
        guard let item, node.maxItems != 0 else { return node.minItems == 0 ? #""[" space "]""# : nil }
        let fewest = Swift.max(node.minItems, 1) - 1
        let more = switch node.maxItems {
        case nil: fewest == 0 ? "*" : "{\(fewest),}"
        case let most?: most - 1 == fewest ? (fewest == 0 ? "" : "{\(fewest)}") : "{\(fewest),\(most - 1)}"
        }
        var elements = "\(item) space"
        if !more.isEmpty {
            let next = uniqueName(name + "-next")
            definitions.append(#"\#(next) ::= "," space \#(item) space"#)
            elements += " \(next)\(more)"
        }
        return #""[" space "# + (node.minItems == 0 ? "(\(elements))?" : elements) + #" "]""#
    }

    private mutating func object(_ node: SchemaNode, name: String) throws(SchemaError) -> String? {
        var members: [(text: String, required: Bool)] = []
        let listed = node.properties.map(\.name) + node.required.filter { node.property(named: $0) == nil }
        var extraValue: String?
        switch node.additionalProperties {
        case .absent, .forbidden: extraValue = nil
        case .allowed: extraValue = use("value")
        case .schema(let extra): extraValue = reference(extra, hint: name + "-extra")
        }
        for key in listed {
            let required = node.requiredNames.contains(key)
            let value: String? = if let property = node.property(named: key) {
                reference(property.node, hint: name == "document" ? key : "\(name)-\(key)")
            } else if case .absent = node.additionalProperties {
                use("value")
            } else {
                extraValue
            }
            guard let value else {
                if required { return nil }
                continue
            }
            members.append((GBNF.literal(JSONValue.quoted(key)) + #" space ":" space "# + value + " space", required))
        }
        var extra: String?
        if let extraValue {
            let rule = uniqueName(name + "-extra-member")
            try add(rule, "\(try keyExcluding(listed, name: name)) space \":\" space \(extraValue) space")
            extra = rule
        }
        // rest: the members from here on, each after a comma; first: the same when none came yet.
        // A rule for each position keeps the grammar linear in the number of members.
        var rest = extra.map { #"("," space "# + $0 + ")*" } ?? ""
        var first = extra.map { "(\($0) (\",\" space \($0))*)?" } ?? ""
        for index in members.indices.reversed() {
            let member = members[index]
            let here = [member.text, rest].filter { !$0.isEmpty }.joined(separator: " ")
            let restHere = (member.required ? #""," space "# + member.text : #"("," space "# + member.text + ")?")
                + (rest.isEmpty ? "" : " " + rest)
            let firstHere = member.required ? here : "(\(here) | \(first))"
            guard index > 0 else {
                first = firstHere
                break
            }
            let restRule = uniqueName("\(name)-rest-\(index + 1)")
            let firstRule = uniqueName("\(name)-from-\(index + 1)")
            try add(restRule, restHere)
            try add(firstRule, firstHere)
            (rest, first) = (restRule, firstRule)
        }
        return #""{" space "# + (first.isEmpty ? "" : first + " ") + #""}""#
    }

    /// A JSON string (raw characters only, no escapes) that is none of `names`: a trie with a
    /// rule per node, so that a long name adds rules, not nesting, built without recursion and
    /// counted as it is written.
    private mutating func keyExcluding(_ names: [String], name: String) throws(SchemaError) -> String {
        // Each node's children in the order first seen (found by a dictionary), and whether a name
        // ends there.
        var children: [[(scalar: Unicode.Scalar, node: Int)]] = [[]]
        var childIndex: [[Unicode.Scalar: Int]] = [[:]]
        var ends = [false]
        for key in names {
            var node = 0
            for scalar in key.unicodeScalars {
                if let next = childIndex[node][scalar] {
                    node = next
                    continue
                }
                children.append([])
                childIndex.append([:])
                ends.append(false)
                children[node].append((scalar, children.count - 1))
                childIndex[node][scalar] = children.count - 1
                node = children.count - 1
            }
            ends[node] = true
        }
        let tail = #"[^"\\\x00-\x1F]* "\"""#
        let rules = children.indices.map { _ in uniqueName(name + "-key") }
        for node in children.indices {
            var alternatives = ends[node] ? [] : [#""\"""#]
            for child in children[node] {
                alternatives.append(GBNF.literal(String(child.scalar)) + " " + rules[child.node])
            }
            let excluded = [(UInt32(0), UInt32(0x1F)), (0x22, 0x22), (0x5C, 0x5C)]
                + children[node].map { ($0.scalar.value, $0.scalar.value) }
            alternatives.append(GBNF.characterClass(excluded, negated: true) + " " + tail)
            try add(rules[node], alternatives.joined(separator: " | "))
        }
        return #""\"" "# + rules[0]
    }
}
