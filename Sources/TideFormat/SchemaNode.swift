import TideRegex

/// One checked subschema. ``SchemaReader`` makes them; ``GrammarBuilder`` and
/// ``SchemaValidator`` read them. Subschemas are referred to by their index in the list.
struct SchemaNode: Sendable {
    /// What `additionalProperties` says.
    enum AdditionalProperties: Sendable {
        /// Not given: the validator allows any extra member; the grammar emits none.
        case absent
        /// `true`: any extra member.
        case allowed
        /// `false`: no extra member.
        case forbidden
        /// A schema extra members' values must satisfy.
        case schema(Int)
    }

    /// A property and its schema.
    struct Property: Sendable {
        /// The member name.
        var name: String
        /// Its schema's index.
        var node: Int
    }

    /// A `pattern`, compiled for the validator and parsed for the grammar.
    struct StringPattern: Sendable {
        /// The pattern as written.
        var source: String
        /// The compiled pattern.
        var pattern: Pattern
    }

    /// Where the subschema is in the schema document.
    var pointer: String
    /// The boolean schema `false`.
    var isFalse = false
    /// `$ref`: the index of the schema referred to (nothing else is then set).
    var reference: Int?
    /// `type`, or `nil` for any type.
    var types: Set<JSONType>?
    /// `enum`, or `const` as a single value.
    var allowedValues: [JSONValue]?
    /// Whether ``allowedValues`` came from `const`.
    var isConst = false
    /// `properties`, in the schema's order.
    private(set) var properties: [Property] = []
    /// Where each property is in ``properties``, by name.
    private var propertyPositions: [String: Int] = [:]
    /// `required`, in the schema's order.
    private(set) var required: [String] = []
    /// The names ``required`` lists.
    private(set) var requiredNames: Set<String> = []
    /// `additionalProperties`.
    var additionalProperties = AdditionalProperties.absent
    /// `items`.
    var items: Int?
    /// `minItems`.
    var minItems = 0
    /// `maxItems`.
    var maxItems: Int?
    /// `minLength`, in code points.
    var minLength = 0
    /// `maxLength`, in code points.
    var maxLength: Int?
    /// `pattern`.
    var pattern: StringPattern?
    /// `format`.
    var format: StringFormat?
    /// `anyOf`.
    var anyOf: [Int]?
    /// `oneOf`.
    var oneOf: [Int]?
    /// `minimum`.
    var minimum: Double?
    /// `maximum`.
    var maximum: Double?
    /// `exclusiveMinimum`.
    var exclusiveMinimum: Double?
    /// `exclusiveMaximum`.
    var exclusiveMaximum: Double?

    /// A subschema at `pointer` that asserts nothing yet.
    init(pointer: String) {
        self.pointer = pointer
    }

    /// The property named `name`, found without a scan (schemas may list many).
    func property(named name: String) -> Property? {
        propertyPositions[name].map { properties[$0] }
    }

    /// Adds the property `name` with the schema `node`.
    mutating func addProperty(_ name: String, node: Int) {
        propertyPositions[name] = properties.count
        properties.append(Property(name: name, node: node))
    }

    /// Adds `name` to ``required``; `false` when it is listed already.
    mutating func addRequired(_ name: String) -> Bool {
        guard requiredNames.insert(name).inserted else { return false }
        required.append(name)
        return true
    }

    /// The subschemas matched at the same place without reading anything first: a `$ref`
    /// target and the `anyOf`/`oneOf` branches.
    var sameValueSubschemas: [Int] {
        (reference.map { [$0] } ?? []) + (anyOf ?? []) + (oneOf ?? [])
    }
}
