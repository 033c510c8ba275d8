/// One way a JSON document fails a schema: where in the document (an RFC 6901 JSON pointer,
/// `""` for the whole document) and what is wrong.
public struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// The JSON pointer of the offending value in the document.
    public let pointer: String
    /// What is wrong.
    public let message: String

    /// A violation.
    init(_ pointer: String, _ message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `/age: 200 is above the maximum 150`; the whole document is `(root)`.
    public var description: String { "\(pointer.isEmpty ? "(root)" : pointer): \(message)" }
}
