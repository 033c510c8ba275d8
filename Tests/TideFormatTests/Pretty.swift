import TideFormat

/// Pretty-prints JSON with two-space indentation and a space after each colon, to check that
/// grammars allow a little white space.
enum Pretty {
    static func print(_ value: JSONValue, indent: Int = 0) -> String {
        let inner = "\n" + String(repeating: "  ", count: indent + 1)
        let outer = "\n" + String(repeating: "  ", count: indent)
        switch value {
        case .array(let elements) where !elements.isEmpty:
            return "[" + elements.map { inner + print($0, indent: indent + 1) }.joined(separator: ",") + outer + "]"
        case .object(let object) where !object.members.isEmpty:
            return "{" + object.members.map {
                inner + JSONValue.string($0.key).text + ": " + print($0.value, indent: indent + 1)
            }.joined(separator: ",") + outer + "}"
        default:
            return value.text
        }
    }
}
