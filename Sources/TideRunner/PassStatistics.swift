import Foundation

/// The figures that tell a regression from noise (docs/conversations.md, "Reading the figures"):
/// a pass rate's 95% Wilson interval, pass@k, a measure's mean and standard error, and McNemar's
/// exact test of two targets on the cases they share.
public enum PassStatistics {
    /// The normal quantile of a two-sided 95% interval.
    public static let z95 = 1.959963984540054

    /// The Wilson score interval of `passes` in `runs` at `z` (95% by default): where the true pass
    /// rate lies, given what was seen. Unlike `rate ± z·√(rate(1−rate)/n)`, it stays within [0, 1]
    /// and is not a point at 0 or at `runs` passes. `(0, 1)` for no runs.
    public static func wilsonInterval(passes: Int, runs: Int, z: Double = z95) -> (low: Double, high: Double) {
        precondition(passes >= 0 && passes <= runs, "passes are some of the runs")
        guard runs > 0 else { return (0, 1) }
        let n = Double(runs)
        let rate = Double(passes) / n
        let z2 = z * z
        let centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
        let half = z / (1 + z2 / n) * ((rate * (1 - rate) / n + z2 / (4 * n * n))).squareRoot()
        // At 0 and `runs` passes the bound is exactly 0 or 1; rounding must not move it.
        return (passes == 0 ? 0 : max(0, centre - half), passes == runs ? 1 : min(1, centre + half))
    }

    /// pass@k: the chance that at least one of `k` runs drawn without replacement from `runs`, of
    /// which `passes` passed, passes — the unbiased estimator of Chen et al. (2021), "Evaluating
    /// Large Language Models Trained on Code": 1 − C(n−c, k) / C(n, k), computed as a product so
    /// that it neither overflows nor loses precision.
    public static func passAtK(passes: Int, runs: Int, k: Int) -> Double {
        precondition(k >= 1 && k <= runs && passes >= 0 && passes <= runs, "1 ≤ k ≤ runs, passes among the runs")
        if runs - passes < k { return 1 }
        guard passes > 0 else { return 0 }
        var allFail = 1.0
        for i in (runs - passes + 1)...runs { allFail *= 1 - Double(k) / Double(i) }
        return 1 - allFail
    }

    /// The mean of `values` and its standard error (the sample standard deviation over √n);
    /// the error is `nil` for fewer than two values.
    public static func mean(_ values: [Double]) -> (mean: Double, standardError: Double?)? {
        guard !values.isEmpty else { return nil }
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        guard values.count > 1 else { return (mean, nil) }
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        return (mean, (variance / n).squareRoot())
    }

    /// McNemar's exact test: of the cases two targets share, `onlyFirst` passed on the first only
    /// and `onlySecond` on the second only; the two-sided p-value that flips this uneven (or more)
    /// would come from targets that pass alike. The cases both passed or both failed say nothing
    /// about a difference and do not count. 1 when nothing flipped.
    public static func mcNemarExactP(onlyFirst: Int, onlySecond: Int) -> Double {
        precondition(onlyFirst >= 0 && onlySecond >= 0, "counts of cases")
        let n = onlyFirst + onlySecond
        guard n > 0 else { return 1 }
        // Twice the smaller tail of Binomial(n, 1/2), in logarithms so that n may be large.
        let smaller = min(onlyFirst, onlySecond)
        let logHalf = Double(n) * log(0.5)
        var tail = 0.0
        for i in 0...smaller { tail += exp(logChoose(n, i) + logHalf) }
        return min(1, 2 * tail)
    }

    /// log C(n, k).
    private static func logChoose(_ n: Int, _ k: Int) -> Double {
        lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
    }
}
