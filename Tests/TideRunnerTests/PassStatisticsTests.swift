import Foundation
import Testing
@testable import TideRunner

/// The figures of repeated runs and of targets compared, against values computed independently
/// (scipy's `binomtest`, statsmodels' `proportion_confint(method="wilson")`, and pass@k by its
/// definition with exact binomial coefficients).
@Suite struct PassStatisticsTests {
    @Test func wilsonIntervalsMatchTheReference() {
        // (passes, runs, low, high): statsmodels.stats.proportion.proportion_confint(…, method="wilson")
        let reference: [(Int, Int, Double, Double)] = [
            (0, 5, 0, 0.4345), (5, 5, 0.5655, 1), (4, 5, 0.3755, 0.9638), (8, 10, 0.4902, 0.9433),
            (50, 100, 0.4038, 0.5962), (1, 1, 0.2065, 1),
        ]
        for (passes, runs, low, high) in reference {
            let interval = PassStatistics.wilsonInterval(passes: passes, runs: runs)
            #expect(abs(interval.low - low) < 5e-4 && abs(interval.high - high) < 5e-4, "\(passes)/\(runs): \(interval)")
            #expect(interval.low <= Double(passes) / Double(runs) && Double(passes) / Double(runs) <= interval.high)
        }
        #expect(PassStatistics.wilsonInterval(passes: 0, runs: 0) == (0, 1))
    }

    @Test func passAtKIsItsDefinition() {
        func choose(_ n: Int, _ k: Int) -> Double {
            guard k >= 0 && k <= n else { return 0 }
            return (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
        }
        for runs in 1...12 {
            for passes in 0...runs {
                for k in 1...runs {
                    let expected = 1 - choose(runs - passes, k) / choose(runs, k)
                    #expect(abs(PassStatistics.passAtK(passes: passes, runs: runs, k: k) - expected) < 1e-12, "\(passes)/\(runs) k=\(k)")
                }
            }
        }
        // pass@1 is the pass rate; pass@n is whether any run passed.
        #expect(abs(PassStatistics.passAtK(passes: 3, runs: 10, k: 1) - 0.3) < 1e-12)
        #expect(PassStatistics.passAtK(passes: 1, runs: 10, k: 10) == 1 && PassStatistics.passAtK(passes: 0, runs: 10, k: 10) == 0)
        // Large counts neither overflow nor lose their sense.
        let large = PassStatistics.passAtK(passes: 900, runs: 1000, k: 100)
        #expect(large > 0.999999 && large <= 1)
    }

    @Test func meansComeWithTheirStandardError() throws {
        let (mean, error) = try #require(PassStatistics.mean([2, 4, 4, 4, 5, 5, 7, 9]))
        #expect(mean == 5)
        // The sample standard deviation is √(32/7); over √8.
        #expect(abs(try #require(error) - (32.0 / 7).squareRoot() / 8.0.squareRoot()) < 1e-12)
        #expect(PassStatistics.mean([3])?.standardError == nil && PassStatistics.mean([]) == nil)
    }

    @Test func mcNemarsExactTestMatchesTheBinomialReference() {
        // scipy.stats.binomtest(k, n, 0.5).pvalue, two-sided
        let reference: [(Int, Int, Double)] = [(0, 0, 1), (1, 0, 1), (5, 0, 0.0625), (10, 2, 0.0386), (6, 4, 0.7539),
                                               (0, 12, 0.000488), (25, 10, 0.0167)]
        for (first, second, p) in reference {
            let value = PassStatistics.mcNemarExactP(onlyFirst: first, onlySecond: second)
            #expect(abs(value - p) < 5e-4, "\(first) vs \(second): \(value)")
            #expect(value == PassStatistics.mcNemarExactP(onlyFirst: second, onlySecond: first), "symmetric")
        }
        #expect(PassStatistics.mcNemarExactP(onlyFirst: 5000, onlySecond: 5000) == 1)
        #expect(PassStatistics.mcNemarExactP(onlyFirst: 3000, onlySecond: 2000) < 1e-40)
    }
}
