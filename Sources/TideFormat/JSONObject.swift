/// A JSON object: its members in source order, duplicates kept.
public struct JSONObject: Sendable, Hashable {
    /// The members, in the order they were written.
    public var members: [Member]

    /// One `"key": value` pair.
    public struct Member: Sendable, Hashable {
        /// The key.
        public var key: String
        /// The value.
        public var value: JSONValue

        /// A member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// An object with these members, in this order.
    public init(_ members: [Member]) {
        self.members = members
    }

    /// The value of the member named `key`; when the key appears more than once, the last one.
    public subscript(key: String) -> JSONValue? {
        members.last { $0.key == key }?.value
    }

    /// The distinct keys, in the order of their first appearance.
    var keys: [String] {
        var seen = Set<String>()
        return members.compactMap { seen.insert($0.key).inserted ? $0.key : nil }
    }

    /// Each distinct key once, in the order of its first appearance, with its last value: what a
    /// loop over the members reads, in one pass instead of a lookup (a scan) per key.
    public var distinctMembers: [Member] {
        let values = valuesByKey
        return keys.compactMap { key in values[key].map { Member(key: key, value: $0) } }
    }

    /// The value of each key (the last, when it appears more than once), to look many up.
    var valuesByKey: [String: JSONValue] {
        Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

extension JSONValue {
    /// An object of `members`, in their order: what a server writes as a reply.
    public static func fields(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(JSONObject(members.map { JSONObject.Member(key: $0.key, value: $0.value) }))
    }
}
