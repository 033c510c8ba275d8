/// A script that cannot be read, with where: `file:line:column: message` and the line itself.
public struct ScriptParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column, in characters.
    public var column: Int
    /// What is wrong, and what would be right.
    public var message: String
    /// The offending line, as written.
    public var lineText: String
    /// The file, when known (set by ``ConversationScript/init(contentsOf:)``).
    public var file: String?
    /// The variable that has no value, when that is what is wrong (`{{name}}`).
    public var variable: String?

    /// An error at `line`:`column`.
    public init(line: Int, column: Int, message: String, lineText: String, file: String? = nil) {
        self.line = line
        self.column = column
        self.message = message
        self.lineText = lineText
        self.file = file
    }

    /// `file:line:column: message`, then the line and a caret under the column.
    public var description: String {
        let caret = String(repeating: " ", count: max(column - 1, 0)) + "^"
        return "\(file ?? "<script>"):\(line):\(column): \(message)\n    \(lineText)\n    \(caret)"
    }
}
