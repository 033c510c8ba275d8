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

    /// How many characters from here the `scalar`-th Unicode scalar (from 0) of the argument
    /// starting here was written: in a quoted string, its escapes (`\n`, `\u{…}`) count as written.
    func offset(ofScalar scalar: Int, quoted: Bool) -> Int {
        var scalars = 0
        var offset = quoted ? 1 : 0
        var index = quoted ? rest.index(after: rest.startIndex) : rest.startIndex
        while index < rest.endIndex && scalars < scalar {
            var next = rest.index(after: index)
            if quoted && rest[index] == "\\" && next < rest.endIndex {
                next = rest[next] == "u" ? rest[next...].firstIndex(of: "}").map(rest.index(after:)) ?? rest.endIndex
                    : rest.index(after: next)
                scalars += 1
            } else {
                scalars += rest[index].unicodeScalars.count
            }
            offset += rest.distance(from: index, to: next)
            index = next
        }
        return offset
    }

    /// Moves to `remainder`, a suffix of the current rest.
    mutating func advance(to remainder: Substring) {
        column += rest.distance(from: rest.startIndex, to: remainder.startIndex)
        rest = remainder
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
