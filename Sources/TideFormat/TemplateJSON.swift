import TideCore

extension ToolDefinition {
    /// The tool as OpenAI's API and the chat templates write it:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    public var functionJSON: JSONValue {
        .object(JSONObject([
            .init(key: "type", value: .string("function")),
            .init(key: "function", value: .object(JSONObject([
                .init(key: "name", value: .string(name)),
                .init(key: "description", value: .string(description)),
                .init(key: "parameters", value: (try? JSONValue(parsing: parameters)) ?? .object(JSONObject([]))),
            ]))),
        ]))
    }
}

extension JSONValue {
    /// The value as the chat templates' `tojson` writes it (Python's `json.dumps` with
    /// `ensure_ascii=False`): `", "` and `": "` between items, or each item on its own line under
    /// `indent` spaces a level.
    func dumped(indent: Int? = nil, depth: Int = 0) -> String {
        let (open, close, separator) = indent.map { indent in
            ("\n" + String(repeating: " ", count: indent * (depth + 1)), "\n" + String(repeating: " ", count: indent * depth), ",")
        } ?? ("", "", ", ")
        let between = indent == nil ? separator : separator + open
        switch self {
        case .object(let object) where !object.members.isEmpty:
            return "{" + open + object.members.map { Self.quoted($0.key) + ": " + $0.value.dumped(indent: indent, depth: depth + 1) }
                .joined(separator: between) + close + "}"
        case .array(let items) where !items.isEmpty:
            return "[" + open + items.map { $0.dumped(indent: indent, depth: depth + 1) }.joined(separator: between) + close + "]"
        case .object: return "{}"
        case .array: return "[]"
        default: return text
        }
    }
}
