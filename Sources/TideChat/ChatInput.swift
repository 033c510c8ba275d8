/// Gathers typed lines into chat inputs: each line is one input, except a block, which runs
/// from a line holding only `"""` to the next such line and is one input of several lines.
///
/// ```swift
/// var input = ChatInput()
/// input.add("\"\"\"")          // nil: a block has begun
/// input.add("line one")        // nil
/// input.add("\"\"\"")          // "line one"
/// ```
public struct ChatInput: Sendable {
    /// The delimiter of a block of several lines.
    public static let blockDelimiter = "\"\"\""

    private var block: [String]?

    /// An assembler with nothing pending.
    public init() {}

    /// Whether a block is open (the REPL shows a continuation prompt).
    public var isInBlock: Bool { block != nil }

    /// Bytes held in an open block.
    public private(set) var pendingBytes = 0

    /// Adds one typed line; returns an input when one is complete.
    public mutating func add(_ line: String) -> String? {
        let isDelimiter = line.trimmingCharacters(in: .whitespaces) == Self.blockDelimiter
        guard var lines = block else {
            if isDelimiter {
                block = []
                pendingBytes = 0
                return nil
            }
            return line
        }
        if isDelimiter {
            block = nil
            pendingBytes = 0
            return lines.joined(separator: "\n")
        }
        lines.append(line)
        block = lines
        pendingBytes += line.utf8.count + 1
        return nil
    }

    /// Ends an open block early (the input ended); returns its text, if it has any.
    public mutating func finish() -> String? {
        defer { abandon() }
        guard let lines = block, !lines.isEmpty else { return nil }
        return lines.joined(separator: "\n")
    }

    /// Drops an open block (Ctrl-C).
    public mutating func abandon() {
        block = nil
        pendingBytes = 0
    }
}
