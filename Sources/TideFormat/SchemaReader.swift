import TideRegex

/// Checks a schema document keyword by keyword and turns it into ``SchemaNode``s, resolving
/// every `$ref`: a `#…` reference points into the schema resource it is written in, the
/// innermost subschema with an `$id` (a URI, not a `#name` anchor) around it, else the
/// document. So a schema embedded in another with an `$id` of its own (a tool's parameters in
/// the grammar of its calls) keeps its references (`#/$defs/Location`, as pydantic writes
/// them). Limits: subschemas nest at most ``maximumDepth`` (64) deep; `maxLength`,
/// `minLength`, `minItems` and `maxItems` are at most ``maximumCount`` (1000), the most a
/// grammar repetition can enforce.
struct SchemaReader {
    /// The deepest nesting of subschemas: 64.
    static let maximumDepth = 64
    /// The largest length or item count a schema may ask for: 1000.
    static let maximumCount = 1000

    private static let annotations: Set<String> = [
        "title", "description", "$schema", "$id", "$comment", "examples", "default", "readOnly", "writeOnly", "deprecated",
    ]
    private static let assertions = [
        "type", "properties", "required", "additionalProperties", "enum", "const", "items", "minItems", "maxItems",
        "minLength", "maxLength", "pattern", "format", "anyOf", "oneOf", "$ref", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum",
    ]
    private static let supported = assertions + ["$defs", "definitions"] + annotations.sorted()

    private let document: JSONValue
    private(set) var nodes: [SchemaNode] = []
    private var byPointer: [String: Int] = [:]
    private var references: [(node: Int, target: String, resource: String)] = []
    /// The pointer of the schema resource being read: where its `#…` references start.
    private var resource = ""

    /// Reads `document`; node 0 is the root.
    static func read(_ document: JSONValue) throws(SchemaError) -> [SchemaNode] {
        var reader = SchemaReader(document: document)
        _ = try reader.read(document, at: "", depth: 0)
        try reader.resolveReferences()
        try reader.refuseEmptyCycles()
        return reader.nodes
    }

    private init(document: JSONValue) {
        self.document = document
    }

    private mutating func read(_ value: JSONValue, at pointer: String, depth: Int) throws(SchemaError) -> Int {
        if depth > Self.maximumDepth {
            throw SchemaError(pointer, nil, "subschemas nest deeper than the limit of \(Self.maximumDepth)")
        }
        let index = nodes.count
        nodes.append(SchemaNode(pointer: pointer))
        byPointer[pointer] = index
        switch value {
        case .bool(let accepts):
            nodes[index].isFalse = !accepts
        case .object(let object):
            let enclosing = resource
            if case .string(let id)? = object["$id"], !id.hasPrefix("#") { resource = pointer }
            defer { resource = enclosing }
            nodes[index] = try readObject(object, at: pointer, depth: depth, index: index)
        default:
            throw SchemaError(pointer, nil, "a schema must be an object or a boolean, not \(JSONType.of(value).rawValue)")
        }
        return index
    }

    private mutating func readObject(_ object: JSONObject, at pointer: String, depth: Int, index: Int)
        throws(SchemaError) -> SchemaNode {
        var node = SchemaNode(pointer: pointer)
        let keys = object.keys
        for key in keys where !Self.supported.contains(key) {
            throw SchemaError(pointer, key, "unsupported keyword '\(key)'; supported: \(Self.supported.joined(separator: ", "))")
        }
        let given = Set(keys).intersection(Self.assertions)
        for exclusive in ["$ref", "anyOf", "oneOf"] where given.contains(exclusive) && given.count > 1 {
            let other = given.subtracting([exclusive]).sorted()[0]
            throw SchemaError(pointer, exclusive, "'\(exclusive)' can't be combined with '\(other)' in the same schema; "
                              + "move '\(other)' into the schema(s) '\(exclusive)' leads to")
        }
        for member in object.distinctMembers {
            try readKeyword(member.key, member.value, into: &node, at: pointer, depth: depth, index: index)
        }
        try checkCombinations(node, given: given, at: pointer)
        return node
    }

    private mutating func readKeyword(_ key: String, _ value: JSONValue, into node: inout SchemaNode, at pointer: String,
                                      depth: Int, index: Int) throws(SchemaError) {
        let here = JSONPointer.appending(key, to: pointer)
        func fail(_ message: String) -> SchemaError { SchemaError(pointer, key, "'\(key)' \(message)") }
        switch key {
        case "type":
            let names: [JSONValue] = if case .array(let list) = value { list } else { [value] }
            var types = Set<JSONType>()
            for name in names {
                guard case .string(let text) = name, let type = JSONType(rawValue: text) else {
                    throw fail("must be one of \(JSONType.allCases.map(\.rawValue).joined(separator: ", ")) or a list of them")
                }
                guard types.insert(type).inserted else { throw fail("lists '\(text)' twice") }
            }
            if types.isEmpty { throw fail("must list at least one type") }
            node.types = types
        case "properties":
            guard case .object(let properties) = value else { throw fail("must be an object of schemas") }
            for property in properties.distinctMembers {
                let child = try read(property.value, at: JSONPointer.appending(property.key, to: here), depth: depth + 1)
                node.addProperty(property.key, node: child)
            }
        case "required":
            guard case .array(let list) = value else { throw fail("must be an array of property names") }
            for name in list {
                guard case .string(let text) = name else { throw fail("must be an array of property names (strings)") }
                guard node.addRequired(text) else { throw fail("lists '\(text)' twice") }
            }
        case "additionalProperties":
            switch value {
            case .bool(true): node.additionalProperties = .allowed
            case .bool(false): node.additionalProperties = .forbidden
            default: node.additionalProperties = .schema(try read(value, at: here, depth: depth + 1))
            }
        case "enum":
            guard case .array(let values) = value, !values.isEmpty else {
                throw fail("must be a non-empty array of the allowed values")
            }
            node.allowedValues = values
        case "const":
            node.allowedValues = [value]
            node.isConst = true
        case "items":
            if case .array = value {
                throw fail("must be one schema; a list of schemas (tuple validation) is not supported")
            }
            node.items = try read(value, at: here, depth: depth + 1)
        case "minItems": node.minItems = try count(value, fail)
        case "maxItems": node.maxItems = try count(value, fail)
        case "minLength": node.minLength = try count(value, fail)
        case "maxLength": node.maxLength = try count(value, fail)
        case "pattern":
            guard case .string(let source) = value else { throw fail("must be a string") }
            do {
                node.pattern = SchemaNode.StringPattern(source: source, pattern: try Pattern(source))
            } catch {
                throw fail("is not a pattern TideRegex accepts: \(error)")
            }
        case "format":
            guard case .string(let name) = value, let format = StringFormat(rawValue: name) else {
                throw fail("must be one of \(StringFormat.allCases.map(\.rawValue).joined(separator: ", ")); other formats "
                           + "can't be enforced by a grammar")
            }
            node.format = format
        case "anyOf", "oneOf":
            guard case .array(let list) = value, !list.isEmpty else { throw fail("must be a non-empty array of schemas") }
            var branches: [Int] = []
            for (position, branch) in list.enumerated() {
                branches.append(try read(branch, at: JSONPointer.appending(position, to: here), depth: depth + 1))
            }
            if key == "anyOf" { node.anyOf = branches } else { node.oneOf = branches }
        case "$ref":
            guard case .string(let target) = value else { throw fail("must be a string such as '#/$defs/name'") }
            references.append((index, target, resource))
        case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
            guard case .number(let bound) = value else { throw fail("must be a number") }
            switch key {
            case "minimum": node.minimum = bound
            case "maximum": node.maximum = bound
            case "exclusiveMinimum": node.exclusiveMinimum = bound
            default: node.exclusiveMaximum = bound
            }
        case "$defs", "definitions":
            guard case .object(let definitions) = value else { throw fail("must be an object of schemas") }
            for definition in definitions.distinctMembers {
                _ = try read(definition.value, at: JSONPointer.appending(definition.key, to: here), depth: depth + 1)
            }
        default:
            break
        }
    }

    private func count(_ value: JSONValue, _ fail: (String) -> SchemaError) throws(SchemaError) -> Int {
        guard case .number(let number) = value, number >= 0, number.rounded() == number else {
            throw fail("must be a non-negative integer")
        }
        guard number <= Double(Self.maximumCount) else {
            throw fail("is \(JSONValue.numberText(number)), over the limit of \(Self.maximumCount) a grammar can enforce")
        }
        return Int(number)
    }

    private func checkCombinations(_ node: SchemaNode, given: Set<String>, at pointer: String) throws(SchemaError) {
        if node.pattern != nil {
            for other in ["minLength", "maxLength", "format"] where given.contains(other) {
                throw SchemaError(pointer, "pattern", "'pattern' can't be combined with '\(other)' in a grammar; put the "
                                  + "length or format into the pattern instead (e.g. ^[a-z]{1,20}$)")
            }
        }
        if node.format != nil {
            for other in ["minLength", "maxLength"] where given.contains(other) {
                throw SchemaError(pointer, "format", "'format' fixes the string's shape; remove '\(other)'")
            }
        }
        let bounds = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].filter(given.contains)
        if let bound = bounds.first, node.allowedValues == nil, node.types != [.integer] {
            throw SchemaError(pointer, bound, "only integer bounds can be enforced: '\(bound)' needs \"type\": \"integer\" "
                              + "(or an enum of the allowed numbers)")
        }
    }

    // MARK: References

    private mutating func resolveReferences() throws(SchemaError) {
        for (node, target, resource) in references {
            let pointer = nodes[node].pointer
            guard target.hasPrefix("#") else {
                throw SchemaError(pointer, "$ref", "'$ref' \(target) is not local; only '#', '#/$defs/…', '#/definitions/…' "
                                  + "and other '#/…' pointers into this schema are supported")
            }
            guard let resolved = byPointer[resource + target.dropFirst()] else {
                throw SchemaError(pointer, "$ref", "'$ref' \(target) points to no schema in this document; define it under "
                                  + "'$defs' (e.g. #/$defs/name)")
            }
            nodes[node].reference = resolved
        }
    }

    /// Refuses a loop of `$ref`, `anyOf` and `oneOf` that comes back to a schema without going
    /// through an object member or array item, as it would define a value by itself.
    private func refuseEmptyCycles() throws(SchemaError) {
        var loop: [Int]?
        walkDepthFirst(nodes.map(\.sameValueSubschemas), finished: { _ in }, cycle: { path, target in
            loop = path.drop { $0 != target } + [target]
            return true
        })
        guard let loop else { return }
        let cycle = loop.map { "#" + nodes[$0].pointer }
        throw SchemaError(nodes[loop[loop.count - 1]].pointer, "$ref", "the references \(cycle.joined(separator: " → ")) form a "
                          + "loop that reads no input; a recursive schema must recurse through a property or an array item")
    }
}
