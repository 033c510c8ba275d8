/// Diffs for people, by longest common subsequence (replies are short): lines for the terminal,
/// words for the HTML report.
public enum TextDiff {
    /// A run of the diff: in both texts, only in the old one, or only in the new one.
    public enum Piece: Sendable, Hashable {
        case same(String)
        case removed(String)
        case added(String)
    }

    /// `-` lines only in the old text, `+` lines only in the new, two spaces before lines in both.
    static func lines(from old: String, to new: String) -> String {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false)
        return pieces(a, b).map { piece in
            switch piece {
            case .same(let line): "  " + line
            case .removed(let line): "- " + line
            case .added(let line): "+ " + line
            }
        }.joined(separator: "\n")
    }

    /// The words of `old` and `new` (each with the white space after it) as runs kept, removed
    /// and added, neighbours of one kind joined. Past `limit` words on either side, the texts are
    /// compared whole (the table grows with the product of their lengths).
    public static func words(from old: String, to new: String, limit: Int = 2000) -> [Piece] {
        let a = words(old), b = words(new)
        guard a.count <= limit, b.count <= limit else { return old == new ? [.same(old)] : [.removed(old), .added(new)] }
        var joined: [Piece] = []
        for piece in pieces(a, b) {
            switch (joined.last, piece) {
            case (.same(let x)?, .same(let y)): joined[joined.count - 1] = .same(x + y)
            case (.removed(let x)?, .removed(let y)): joined[joined.count - 1] = .removed(x + y)
            case (.added(let x)?, .added(let y)): joined[joined.count - 1] = .added(x + y)
            default: joined.append(piece)
            }
        }
        return joined
    }

    /// `text` cut after each run of white space.
    private static func words(_ text: String) -> [Substring] {
        var words: [Substring] = []
        var start = text.startIndex
        var inSpace = false
        for index in text.indices {
            let space = text[index].isWhitespace
            if inSpace && !space {
                words.append(text[start..<index])
                start = index
            }
            inSpace = space
        }
        if start < text.endIndex { words.append(text[start...]) }
        return words
    }

    /// The edit script from `a` to `b`, item by item.
    private static func pieces(_ a: [Substring], _ b: [Substring]) -> [Piece] {
        // common[i][j]: the longest common subsequence of a[i...] and b[j...].
        var common = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                common[i][j] = a[i] == b[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var output: [Piece] = []
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                output.append(.same(String(a[i])))
                i += 1
                j += 1
            } else if i < a.count, j == b.count || common[i + 1][j] >= common[i][j + 1] {
                output.append(.removed(String(a[i])))
                i += 1
            } else {
                output.append(.added(String(b[j])))
                j += 1
            }
        }
        return output
    }
}
