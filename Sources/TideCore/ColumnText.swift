/// Rows of text as aligned columns: every column but the last padded to its widest cell
/// (`tide models list`, `tide logs`, the chat's `/history`).
public enum ColumnText {
    /// The rows as lines.
    public static func lines(_ rows: [[String]]) -> [String] {
        let columns = (rows.map(\.count).max() ?? 1) - 1
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths + [0]).map { $0 + String(repeating: " ", count: max(0, $1 - $0.count)) }
                .joined(separator: "  ")
        }
    }
}

extension ColumnText {
    /// `text` as one cell: on one line, at most `limit` characters (cut with `…`).
    public static func cell(_ text: String, limit: Int = 60) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
    }
}
