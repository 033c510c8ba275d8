/// GBNF for the integers of a closed range, written digit by digit so that exactly the numbers
/// in the range match (without leading zeros; zero is `0`, never `-0`).
enum IntegerRange {
    /// The expression matching the integers from `lower` to `upper`, or `nil` when the range is empty.
    static func expression(from lower: Int64, to upper: Int64) -> String? {
        guard lower <= upper else { return nil }
        var alternatives: [String] = []
        if lower < 0 {
            // Magnitudes of the negative part: from max(1, -upper) to -lower.
            let magnitudeLow = upper < 0 ? upper.magnitude : 1
            alternatives += naturals(from: magnitudeLow, to: lower.magnitude).map { "\"-\" " + $0 }
        }
        if upper >= 0 {
            alternatives += naturals(from: lower < 0 ? 0 : UInt64(lower), to: UInt64(upper))
        }
        return "(" + alternatives.joined(separator: " | ") + ")"
    }

    /// Alternatives matching the naturals from `lower` to `upper`, one group per digit count.
    private static func naturals(from lower: UInt64, to upper: UInt64) -> [String] {
        var alternatives: [String] = []
        var start = lower
        while start <= upper {
            let digits = String(start).count
            let end = digits >= 20 ? upper : min(upper, power(digits) - 1)
            alternatives += sameLength(Array(String(start)), Array(String(end)))
            if end == upper { break }
            start = end + 1
        }
        return alternatives
    }

    /// 10 to the `exponent` (below 20).
    private static func power(_ exponent: Int) -> UInt64 {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }

    /// Alternatives for the numbers from `low` to `high`, both written with the same number of digits.
    private static func sameLength(_ low: [Character], _ high: [Character]) -> [String] {
        guard let first = low.first, let last = high.first else { return [""] }
        let lowRest = Array(low.dropFirst())
        let highRest = Array(high.dropFirst())
        if first == last {
            return sameLength(lowRest, highRest).map { join(GBNF.literal(String(first)), $0) }
        }
        let lowIsFloor = lowRest.allSatisfy { $0 == "0" }
        let highIsCeiling = highRest.allSatisfy { $0 == "9" }
        let any = lowRest.isEmpty ? "" : "[0-9]" + (lowRest.count > 1 ? "{\(lowRest.count)}" : "")
        var alternatives: [String] = []
        var middleLow = first.wholeNumberValue! + 1
        var middleHigh = last.wholeNumberValue! - 1
        if lowIsFloor {
            middleLow -= 1
        } else {
            alternatives += sameLength(lowRest, Array(repeating: "9", count: lowRest.count)).map { join(GBNF.literal(String(first)), $0) }
        }
        if highIsCeiling { middleHigh += 1 }
        if middleLow <= middleHigh {
            alternatives.append(join(middleLow == middleHigh ? GBNF.literal(String(middleLow)) : "[\(middleLow)-\(middleHigh)]", any))
        }
        if !highIsCeiling {
            alternatives += sameLength(Array(repeating: "0", count: highRest.count), highRest).map { join(GBNF.literal(String(last)), $0) }
        }
        return alternatives
    }

    private static func join(_ head: String, _ tail: String) -> String {
        tail.isEmpty ? head : head + " " + tail
    }
}
