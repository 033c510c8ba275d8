extension DecodingError {
    /// Where decoding failed and why, for users: `at models[0].kind: unknown kind 'cloud'`,
    /// `at messages[1]: 'role' is missing`, or `not valid JSON`.
    public var plainDescription: String {
        func location(_ context: Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "" : "at \(keys.hasPrefix(".") ? String(keys.dropFirst()) : keys): "
        }
        switch self {
        case .dataCorrupted(let context):
            return location(context) + (context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription)
        case .keyNotFound(let key, let context): return location(context) + "'\(key.stringValue)' is missing"
        case .typeMismatch(let type, let context): return location(context) + "expected \(Self.name(of: type))"
        case .valueNotFound(let type, let context): return location(context) + "expected \(Self.name(of: type)), found null"
        @unknown default: return "\(self)"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }
}
