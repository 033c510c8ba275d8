/// The plugins' costs over a reply as a table (`--stats`, `/stats`, `tide bench --only
/// plugins`): per plugin and hook, its calls, the instructions they spent in all and per
/// generated token, their time in all and per token, and their share of the reply's time.
public enum HookCostTable {
    /// The table's lines, headed, for `costs` over a reply of `tokens` generated tokens that
    /// took `replyTime`; none when there are no costs.
    public static func lines(_ costs: [HookCost], tokens: Int, replyTime: Duration) -> [String] {
        guard !costs.isEmpty else { return [] }
        let perToken = Double(max(tokens, 1))
        var rows = [["plugin", "hook", "calls", "instructions", "per token", "time", "per token", "share"]]
        for cost in costs {
            rows.append([cost.plugin, cost.hook.rawValue, "\(cost.calls)",
                         cost.instructions.map { grouped($0) } ?? "-",
                         cost.instructions.map { grouped(Int((Double($0) / perToken).rounded())) } ?? "-",
                         microseconds(cost.duration.seconds * 1e6), microseconds(cost.duration.seconds * 1e6 / perToken),
                         share(cost.duration, of: replyTime)])
        }
        return ColumnText.lines(rows).map { $0.trimmingTrailingSpaces }
    }

    /// `duration` as a percentage of `whole`, `-` when the whole took no time.
    public static func share(_ duration: Duration, of whole: Duration) -> String {
        guard whole > .zero else { return "-" }
        return fixed(duration.seconds / whole.seconds * 100, digits: 2) + " %"
    }

    /// A time in microseconds, as µs below 1 ms and as ms above.
    public static func microseconds(_ value: Double) -> String {
        value < 1000 ? fixed(value, digits: 1) + " µs" : fixed(value / 1000, digits: 1) + " ms"
    }

    /// `value` (not negative) rounded to `digits` decimals, written with them all: `fixed(2.5, digits: 2)` is `2.50`.
    public static func fixed(_ value: Double, digits: Int) -> String {
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let units = Int((max(0, value) * Double(scale)).rounded())
        let fraction = String(units % scale)
        return "\(units / scale)" + (digits == 0 ? "" : "." + String(repeating: "0", count: digits - fraction.count) + fraction)
    }

    /// `value` with its thousands grouped by commas.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        String(self[..<(lastIndex { $0 != " " }.map { index(after: $0) } ?? startIndex)])
    }
}
