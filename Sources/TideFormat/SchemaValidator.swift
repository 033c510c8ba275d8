import TideRegex

/// Checks a document against checked ``SchemaNode``s with full JSON Schema semantics for the
/// supported keywords: extra members are allowed unless `additionalProperties` says otherwise,
/// `pattern` is an unanchored search, lengths count code points, `oneOf` means exactly one.
/// It descends at most ``maximumDepth`` (256) levels into the document, and each pattern search
/// takes at most ``patternSteps`` steps.
struct SchemaValidator {
    /// The deepest the validator descends into a document: 256.
    static let maximumDepth = 256
    /// The step budget of one `pattern` search: 1,000,000.
    static let patternSteps = 1_000_000

    let nodes: [SchemaNode]
    /// Whether the value at a place matched a node, for `anyOf` and `oneOf` branches.
    private let known = KnownMatches()

    /// The violations of `value` against node `index`.
    func violations(of value: JSONValue, against index: Int) -> [SchemaViolation] {
        known.matches.removeAll()
        return violations(of: value, against: index, at: "", depth: 0)
    }

    /// Whether the value at `pointer` matches node `index`, worked out once per place and node:
    /// branches that lead to the same schemas (`anyOf` of `$ref`s, nested) would otherwise check
    /// them again at every level, exponentially.
    private func matches(_ value: JSONValue, _ index: Int, at pointer: String, depth: Int) -> Bool {
        let place = KnownMatches.Place(pointer: pointer, node: index)
        if let match = known.matches[place] { return match }
        let match = violations(of: value, against: index, at: pointer, depth: depth).isEmpty
        known.matches[place] = match
        return match
    }

    /// The violations of `value`, at `pointer`, against node `index`.
    private func violations(of value: JSONValue, against index: Int, at pointer: String, depth: Int) -> [SchemaViolation] {
        guard depth <= Self.maximumDepth else {
            return [SchemaViolation(pointer, "the document nests deeper than the limit of \(Self.maximumDepth)")]
        }
        let node = nodes[index]
        if node.isFalse { return [SchemaViolation(pointer, "no value is allowed here (the schema is false)")] }
        if let target = node.reference { return violations(of: value, against: target, at: pointer, depth: depth + 1) }
        var found: [SchemaViolation] = []
        func report(_ message: String) { found.append(SchemaViolation(pointer, message)) }

        if let types = node.types, !types.contains(where: { $0.admits(value) }) {
            report("expected \(types.map(\.rawValue).sorted().joined(separator: " or ")), got \(JSONType.of(value).rawValue)")
        }
        if let allowed = node.allowedValues, !allowed.contains(where: { Self.equal($0, value) }) {
            report(node.isConst ? "must be \(allowed[0].text)"
                                : "must be one of \(allowed.map(\.text).joined(separator: ", "))")
        }
        if let branches = node.anyOf {
            if !branches.contains(where: { matches(value, $0, at: pointer, depth: depth + 1) }) {
                report("matches none of the anyOf schemas")
            }
        }
        if let branches = node.oneOf {
            let matching = branches.indices.filter { matches(value, branches[$0], at: pointer, depth: depth + 1) }
            if matching.count != 1 {
                report(matching.isEmpty ? "matches none of the oneOf schemas"
                                        : "matches oneOf schemas \(matching.map(String.init).joined(separator: " and ")); "
                                          + "exactly one must match")
            }
        }
        switch value {
        case .number(let number): checkBounds(number, node, report)
        case .string(let string): checkString(string, node, report)
        case .array(let elements):
            if elements.count < node.minItems { report("has \(elements.count) items, fewer than minItems \(node.minItems)") }
            if let maximum = node.maxItems, elements.count > maximum {
                report("has \(elements.count) items, more than maxItems \(maximum)")
            }
            if let items = node.items {
                for (position, element) in elements.enumerated() {
                    found += violations(of: element, against: items, at: JSONPointer.appending(position, to: pointer),
                                        depth: depth + 1)
                }
            }
        case .object(let object):
            found += objectViolations(object, node, at: pointer, depth: depth)
        default:
            break
        }
        return found
    }

    private func objectViolations(_ object: JSONObject, _ node: SchemaNode, at pointer: String, depth: Int)
        -> [SchemaViolation] {
        var found: [SchemaViolation] = []
        let values = object.valuesByKey
        for name in node.required where values[name] == nil {
            found.append(SchemaViolation(pointer, "missing required property '\(name)'"))
        }
        for member in object.distinctMembers {
            let (key, value) = (member.key, member.value)
            let here = JSONPointer.appending(key, to: pointer)
            if let property = node.property(named: key) {
                found += violations(of: value, against: property.node, at: here, depth: depth + 1)
                continue
            }
            switch node.additionalProperties {
            case .absent, .allowed: break
            case .forbidden:
                found.append(SchemaViolation(here, "property '\(key)' is not allowed (additionalProperties is false)"))
            case .schema(let extra):
                found += violations(of: value, against: extra, at: here, depth: depth + 1)
            }
        }
        return found
    }

    private func checkBounds(_ number: Double, _ node: SchemaNode, _ report: (String) -> Void) {
        let text = JSONValue.numberText(number)
        if let bound = node.minimum, number < bound { report("\(text) is below the minimum \(JSONValue.numberText(bound))") }
        if let bound = node.maximum, number > bound { report("\(text) is above the maximum \(JSONValue.numberText(bound))") }
        if let bound = node.exclusiveMinimum, number <= bound {
            report("\(text) is not above the exclusive minimum \(JSONValue.numberText(bound))")
        }
        if let bound = node.exclusiveMaximum, number >= bound {
            report("\(text) is not below the exclusive maximum \(JSONValue.numberText(bound))")
        }
    }

    private func checkString(_ string: String, _ node: SchemaNode, _ report: (String) -> Void) {
        let length = string.unicodeScalars.count
        if length < node.minLength { report("is \(length) characters long, shorter than minLength \(node.minLength)") }
        if let maximum = node.maxLength, length > maximum {
            report("is \(length) characters long, longer than maxLength \(maximum)")
        }
        if let format = node.format, !format.admits(string) { report("is not a valid \(format.rawValue)") }
        if let pattern = node.pattern {
            do {
                if try !pattern.pattern.matches(string, budget: MatchBudget(maximumSteps: Self.patternSteps)) {
                    report("does not match the pattern \(pattern.source)")
                }
            } catch {
                report("could not be checked against the pattern \(pattern.source): \(error)")
            }
        }
    }

    /// JSON equality: numbers by value, objects regardless of member order.
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1) }
        case (.object(let left), .object(let right)):
            let (leftValues, rightValues) = (left.valuesByKey, right.valuesByKey)
            return leftValues.count == rightValues.count
                && leftValues.allSatisfy { key, value in rightValues[key].map { equal(value, $0) } ?? false }
        default:
            return a == b
        }
    }
}

/// What ``SchemaValidator`` knows of one document: whether the value at a place matched a node.
private final class KnownMatches {
    struct Place: Hashable {
        var pointer: String
        var node: Int
    }

    var matches: [Place: Bool] = [:]
}
