/// Why a text is not well-formed (a JSON document, a GBNF grammar), and where:
/// `line 3, column 7: expected ':' after an object key`.
public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line, from 1.
    public let line: Int
    /// The column, from 1, counting Characters (grapheme clusters).
    public let column: Int
    /// What is wrong and what was expected.
    public let message: String

    /// An error at `location`.
    init(_ message: String, at location: SourceLocation) {
        line = location.line
        column = location.column
        self.message = message
    }

    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }
}
