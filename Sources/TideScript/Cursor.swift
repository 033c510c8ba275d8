/// A position in one line of a script, counting columns in characters (1-based).
struct Cursor {
    private(set) var rest: Substring
    private(set) var column: Int

    init(_ text: Substring, column: Int) {
        self.rest = text
        self.column = column
    }

    var isAtEnd: Bool { rest.isEmpty }
    var peek: Character? { rest.first }

    /// The next run of non-blank characters, without consuming it.
    func word() -> Substring { rest.prefix { $0 != " " && $0 != "\t" } }

    /// Consumes and returns the next run of non-blank characters.
    @discardableResult
    mutating func consumeWord() -> String { consume { $0 != " " && $0 != "\t" } }

    /// Consumes and returns the longest prefix whose characters satisfy `predicate`.
    mutating func consume(while predicate: (Character) -> Bool) -> String {
        let taken = rest.prefix(while: predicate)
        advance(by: taken.count)
        return String(taken)
    }

    mutating func skipSpaces() { _ = consume { $0 == " " || $0 == "\t" } }

    mutating func consumeRest() { advance(by: rest.count) }

    mutating func advance(by count: Int) {
        rest = rest.dropFirst(count)
        column += count
    }

    /// Moves to `remainder`, a suffix of the current rest.
    mutating func advance(to remainder: Substring) {
        advance(by: rest.count - remainder.count)
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end (other whitespace is text).
    func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
