extension JSONValue {
    /// The first object member whose key the same object already had, depth first in source
    /// order, with where that object is (`messages[0]`, `response_format.json_schema`; empty for
    /// the top level); `nil` when every object's keys are distinct.
    public var firstDuplicateKey: (key: String, path: String)? {
        var pending: [(value: JSONValue, path: String)] = [(self, "")]
        while let (value, path) = pending.popLast() {
            switch value {
            case .array(let elements):
                pending += elements.indices.reversed().map { (elements[$0], "\(path)[\($0)]") }
            case .object(let object):
                var seen = Set<String>()
                for member in object.members where !seen.insert(member.key).inserted {
                    return (member.key, path)
                }
                pending += object.members.reversed().map { ($0.value, path.isEmpty ? $0.key : "\(path).\($0.key)") }
            default:
                continue
            }
        }
        return nil
    }
}
