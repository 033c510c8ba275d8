/// Rows of text as aligned columns: every column but the last padded to its widest cell.
enum ColumnText {
    static func lines(_ rows: [[String]]) -> [String] {
        let columns = (rows.map(\.count).max() ?? 1) - 1
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths + [0]).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
    }
}
