/// Why a JSON Schema was refused: where in the schema (an RFC 6901 JSON pointer, `""` for the
/// root), which keyword, and what to do about it.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON pointer of the schema object at fault, `""` for the root schema.
    public let pointer: String
    /// The keyword at fault, if one is.
    public let keyword: String?
    /// What is wrong and what to do.
    public let message: String

    /// An error.
    init(_ pointer: String, _ keyword: String?, _ message: String) {
        self.pointer = pointer
        self.keyword = keyword
        self.message = message
    }

    /// `/properties/age: unsupported keyword 'multipleOf'; supported: …`; the root schema is `(root)`.
    public var description: String { "\(pointer.isEmpty ? "(root)" : pointer): \(message)" }
}
