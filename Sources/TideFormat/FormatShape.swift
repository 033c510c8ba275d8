/// A small regular language, written once per supported `format` and read two ways: as GBNF for
/// the grammar and as a matcher for the validator, so the two accept exactly the same strings.
indirect enum FormatShape: Sendable {
    /// These characters, in order.
    case literal(String)
    /// One character in one of these inclusive code point ranges.
    case oneOf([(lower: UInt32, upper: UInt32)])
    /// The parts one after the other.
    case sequence([FormatShape])
    /// One of the alternatives.
    case choice([FormatShape])
    /// The shape `min` to `max` times.
    case repeated(FormatShape, min: Int, max: Int)

    /// One character from `lower` to `upper`.
    static func range(_ lower: Unicode.Scalar, _ upper: Unicode.Scalar) -> FormatShape {
        .oneOf([(lower.value, upper.value)])
    }

    /// The shape as a GBNF expression.
    var gbnf: String {
        switch self {
        case .literal(let text): GBNF.literal(text)
        case .oneOf(let ranges): GBNF.characterClass(ranges)
        case .sequence(let parts): parts.map(\.gbnf).joined(separator: " ")
        case .choice(let alternatives): "(" + alternatives.map(\.gbnf).joined(separator: " | ") + ")"
        case .repeated(let shape, let min, let max):
            "(" + shape.gbnf + ")" + (min == max ? "{\(min)}" : "{\(min),\(max)}")
        }
    }

    /// Whether all of `text` has this shape.
    func matches(_ text: String) -> Bool {
        let codePoints = text.unicodeScalars.map(\.value)
        return ends(in: codePoints, from: [0]).contains(codePoints.count)
    }

    /// The positions where a match starting at one of `starts` can end.
    private func ends(in text: [UInt32], from starts: Set<Int>) -> Set<Int> {
        switch self {
        case .literal(let literal):
            let expected = literal.unicodeScalars.map(\.value)
            return Set(starts.filter { start in
                start + expected.count <= text.count && Array(text[start..<start + expected.count]) == expected
            }.map { $0 + expected.count })
        case .oneOf(let ranges):
            return Set(starts.filter { start in
                start < text.count && ranges.contains { $0.lower <= text[start] && text[start] <= $0.upper }
            }.map { $0 + 1 })
        case .sequence(let parts):
            return parts.reduce(starts) { positions, part in part.ends(in: text, from: positions) }
        case .choice(let alternatives):
            return alternatives.reduce(into: Set<Int>()) { $0.formUnion($1.ends(in: text, from: starts)) }
        case .repeated(let shape, let min, let max):
            var current = starts
            var result: Set<Int> = min == 0 ? starts : []
            for count in 1...Swift.max(max, 1) where max > 0 {
                current = shape.ends(in: text, from: current)
                if count >= min { result.formUnion(current) }
            }
            return result
        }
    }
}
