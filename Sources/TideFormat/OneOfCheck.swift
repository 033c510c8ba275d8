/// Proves `oneOf` branches disjoint, since a grammar can only offer the branches as
/// alternatives and could not rule out a document matching two of them. Branches count as
/// disjoint when they admit no common type (`integer` being within `number`), when their
/// `enum`/`const` values differ, or, for objects, when one requires a property the other
/// forbids or both require a property whose schemas are disjoint (a `const` discriminator).
/// Anything else is refused, so the grammar stays sound.
struct OneOfCheck {
    /// How deep property schemas are compared: 8.
    static let maximumDepth = 8
    /// The most comparisons (of branches, and of `enum` values) the proofs of one schema may
    /// take: 10,000,000. Past it the schema is refused rather than proved slowly.
    static let maximumSteps = 10_000_000

    let nodes: [SchemaNode]
    /// The types each node admits, worked out once, children first.
    private let admitted: [Set<JSONType>]
    private var steps = 0

    init(nodes: [SchemaNode]) {
        self.nodes = nodes
        var admitted = [Set<JSONType>](repeating: [], count: nodes.count)
        // `$ref`, `anyOf` and `oneOf` form no loop (the reader refuses one), so each node's
        // branches are finished before it.
        walkDepthFirst(nodes.map(\.sameValueSubschemas), finished: { index in
            admitted[index] = Self.types(nodes[index], branches: admitted)
        }, cycle: { _, _ in false })
        self.admitted = admitted
    }

    /// Throws for the first `oneOf` whose branches are not provably disjoint.
    mutating func check() throws(SchemaError) {
        for node in nodes {
            guard let branches = node.oneOf else { continue }
            for first in branches.indices {
                for second in branches.indices where second > first && !disjoint(branches[first], branches[second], depth: 0) {
                    if steps > Self.maximumSteps {
                        throw SchemaError(node.pointer, "oneOf", "proving these branches disjoint takes more than "
                                          + "\(Self.maximumSteps) comparisons; use fewer branches or shorter enums, or anyOf")
                    }
                    throw SchemaError(node.pointer, "oneOf", "branches \(first) and \(second) may both match one document, which a "
                                      + "grammar can't rule out; make them disjoint (different types, different 'const' values "
                                      + "of a required property, or a required property the other forbids) or use anyOf")
                }
            }
        }
    }

    private func resolved(_ index: Int) -> SchemaNode {
        var index = index
        while let target = nodes[index].reference { index = target }
        return nodes[index]
    }

    /// The types `node` can admit, `integer` included wherever `number` is, given its branches'.
    private static func types(_ node: SchemaNode, branches admitted: [Set<JSONType>]) -> Set<JSONType> {
        if node.isFalse { return [] }
        if let target = node.reference { return admitted[target] }
        if let branches = node.anyOf ?? node.oneOf {
            return branches.reduce(into: Set<JSONType>()) { $0.formUnion(admitted[$1]) }
        }
        var result = node.allowedValues.map { Set($0.map(JSONType.of)) } ?? node.types ?? Set(JSONType.allCases)
        if result.contains(.number) { result.insert(.integer) }
        if node.allowedValues != nil, result.contains(.integer) { result.insert(.number) }
        return result
    }

    /// Whether no document matches both; `false` too once the steps are spent.
    private mutating func disjoint(_ first: Int, _ second: Int, depth: Int) -> Bool {
        steps += 1
        guard steps <= Self.maximumSteps else { return false }
        if admitted[first].isDisjoint(with: admitted[second]) { return true }
        let a = resolved(first)
        let b = resolved(second)
        if let left = a.allowedValues, let right = b.allowedValues {
            steps += left.count * right.count
            guard steps <= Self.maximumSteps else { return false }
            return !left.contains { value in right.contains { SchemaValidator.equal(value, $0) } }
        }
        guard depth < Self.maximumDepth, admitted[first] == [.object], admitted[second] == [.object] else { return false }
        if forbidsRequired(a, b) || forbidsRequired(b, a) { return true }
        for key in a.required {
            guard b.requiredNames.contains(key), let left = a.property(named: key), let right = b.property(named: key) else {
                continue
            }
            if disjoint(left.node, right.node, depth: depth + 1) { return true }
        }
        return false
    }

    /// Whether `a` requires a property that `b` forbids.
    private func forbidsRequired(_ a: SchemaNode, _ b: SchemaNode) -> Bool {
        a.required.contains { key in
            if let property = b.property(named: key) { return resolved(property.node).isFalse }
            if case .forbidden = b.additionalProperties { return true }
            return false
        }
    }
}
