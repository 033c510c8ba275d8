import TideCore

extension ToolDefinition {
    /// Why `schema` cannot be the schema of a tool's arguments, or `nil` when it can: the
    /// arguments are a JSON object, so the schema is an object with `"type": "object"` (OpenAI
    /// refuses any other, and a call's grammar built from one would let the model write
    /// arguments no tool can take).
    public static func problem(withParameters schema: JSONValue) -> String? {
        guard case .object(let object) = schema else { return "it must be a JSON schema (an object), not \(schema.text)" }
        guard let type = object["type"] else { return #"it must say "type": "object" (the arguments are an object)"# }
        guard type == .string("object") else {
            return #"its type must be "object" (the arguments are an object), not "# + type.text
        }
        return nil
    }
}
