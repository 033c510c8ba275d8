/// Proves `oneOf` branches disjoint, since a grammar can only offer the branches as
/// alternatives and could not rule out a document matching two of them. Branches count as
/// disjoint when they admit no common type (`integer` being within `number`), when their
/// `enum`/`const` values differ, or, for objects, when one requires a property the other
/// forbids or both require a property whose schemas are disjoint (a `const` discriminator).
/// Anything else is refused, so the grammar stays sound.
struct OneOfCheck {
    /// How deep property schemas are compared: 8.
    static let maximumDepth = 8

    let nodes: [SchemaNode]

    /// Throws for the first `oneOf` whose branches are not provably disjoint.
    func check() throws(SchemaError) {
        for node in nodes {
            guard let branches = node.oneOf else { continue }
            for first in branches.indices {
                for second in branches.indices where second > first && !disjoint(branches[first], branches[second], depth: 0) {
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

    /// The types a node can admit, `integer` included wherever `number` is.
    private func types(_ node: SchemaNode) -> Set<JSONType> {
        if node.isFalse { return [] }
        if let branches = node.anyOf ?? node.oneOf {
            return branches.reduce(into: Set<JSONType>()) { $0.formUnion(types(resolved($1))) }
        }
        var result = node.allowedValues.map { Set($0.map(JSONType.of)) } ?? node.types ?? Set(JSONType.allCases)
        if result.contains(.number) { result.insert(.integer) }
        if node.allowedValues != nil, result.contains(.integer) { result.insert(.number) }
        return result
    }

    private func disjoint(_ first: Int, _ second: Int, depth: Int) -> Bool {
        let a = resolved(first)
        let b = resolved(second)
        if types(a).isDisjoint(with: types(b)) { return true }
        if let left = a.allowedValues, let right = b.allowedValues {
            return !left.contains { value in right.contains { SchemaValidator.equal(value, $0) } }
        }
        guard depth < Self.maximumDepth, types(a) == [.object], types(b) == [.object] else { return false }
        return forbidsRequired(a, b) || forbidsRequired(b, a) || a.required.contains { key in
            guard b.required.contains(key), let left = a.properties.first(where: { $0.name == key }),
                  let right = b.properties.first(where: { $0.name == key }) else { return false }
            return disjoint(left.node, right.node, depth: depth + 1)
        }
    }

    /// Whether `a` requires a property that `b` forbids.
    private func forbidsRequired(_ a: SchemaNode, _ b: SchemaNode) -> Bool {
        a.required.contains { key in
            if let property = b.properties.first(where: { $0.name == key }) { return resolved(property.node).isFalse }
            if case .forbidden = b.additionalProperties { return true }
            return false
        }
    }
}
