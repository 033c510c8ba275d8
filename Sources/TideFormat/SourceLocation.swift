/// A 1-based line and column in a text, the column counting Characters. `\n`, `\r` and `\r\n`
/// each end a line.
struct SourceLocation: Sendable, Hashable {
    /// The line, from 1.
    var line: Int
    /// The column, from 1.
    var column: Int

    /// Where the scalar at `offset` of `scalars` stands (`offset` may be `scalars.count`: the end).
    init(offset: Int, in scalars: [Unicode.Scalar]) {
        var line = 1
        var lineStart = 0
        var index = 0
        while index < offset {
            let scalar = scalars[index]
            index += 1
            if scalar == "\r" && index < offset && scalars[index] == "\n" { index += 1 }
            if scalar == "\n" || scalar == "\r" {
                line += 1
                lineStart = index
            }
        }
        var prefix = String.UnicodeScalarView()
        prefix.append(contentsOf: scalars[lineStart..<offset])
        self.line = line
        column = String(prefix).count + 1
    }
}
