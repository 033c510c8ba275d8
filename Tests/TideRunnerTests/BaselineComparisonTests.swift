import Testing
import TideRunner
import TideScript

/// A run set against its baseline (`tide run --baseline`): which checks changed, which changes
/// are regressions, and what stays noise.
@Suite struct BaselineComparisonTests {
    /// A check that held in `passes` of `runs`, needing `rate`, with `measures`.
    func check(_ text: String, _ passes: Int, of runs: Int, line: Int = 3, rate: String = "1", measures: [Double] = []) -> CheckOutcome {
        CheckOutcome(line: line, text: text, passes: passes, runs: runs, rate: PassRate(parsing: rate)!, measures: measures)
    }

    func outcome(_ file: String, row: String? = nil, target: String? = nil, _ checks: CheckOutcome...) -> ScriptOutcome {
        ScriptOutcome(file: file, name: file, checks: checks, failure: nil, runs: checks.first?.runs ?? 1, row: row, target: target,
                      seconds: 1)
    }

    @Test func verdictsThatFlipAreNewFailuresAndNewPasses() {
        let baseline = [outcome("a.tide", check("expect: contains \"x\"", 1, of: 1), check("expect: contains \"y\"", 0, of: 1))]
        let now = [outcome("a.tide", check("expect: contains \"x\"", 0, of: 1), check("expect: contains \"y\"", 1, of: 1))]
        let comparison = BaselineComparison(outcomes: now, baseline: baseline)
        #expect(comparison.entries.map(\.change) == [.newFailure, .newPass])
        #expect(comparison.sharedCases == 1 && comparison.newChecks == 0 && comparison.missingCases == 0)
        #expect(comparison.isRegression)
        // The same run against itself changes nothing, though a check fails in both.
        let same = BaselineComparison(outcomes: baseline, baseline: baseline)
        #expect(same.entries.isEmpty && !same.isRegression)
    }

    /// A pass rate that stays above its needed share but falls out of the baseline's interval is
    /// a regression; one within it is noise.
    @Test func ratesMovedBeyondTheBaselinesIntervalCount() {
        let baseline = [outcome("a.tide", check("expect: a", 10, of: 10, rate: "0.3"), check("expect: b", 8, of: 10, rate: "0.3"),
                                check("expect: c", 3, of: 10, rate: "0.3"))]
        // 10/10 has the interval [72%, 100%]; 8/10 [49%, 94%]; 3/10 [11%, 60%].
        let now = [outcome("a.tide", check("expect: a", 4, of: 10, rate: "0.3"), check("expect: b", 6, of: 10, rate: "0.3"),
                           check("expect: c", 9, of: 10, rate: "0.3"))]
        let comparison = BaselineComparison(outcomes: now, baseline: baseline)
        #expect(comparison.entries.map(\.change) == [.rateFell, .rateRose])
        #expect(comparison.entries.map(\.now.text) == ["expect: a", "expect: c"])
        #expect(comparison.isRegression)
        #expect(!BaselineComparison(outcomes: [outcome("a.tide", check("expect: c", 9, of: 10, rate: "0.3"))],
                                    baseline: [outcome("a.tide", check("expect: c", 3, of: 10, rate: "0.3"))]).isRegression)
    }

    /// A measure moves when its means part by more than 1.96 standard errors of their
    /// difference; a single run has no standard error, so its measures are not compared.
    @Test func measuresMoveBeyondTheirStandardErrors() {
        let steady = [10.0, 11, 9, 10, 10]  // mean 10, standard error 0.32
        let baseline = [outcome("a.tide", check("expect: perplexity < 100", 5, of: 5, measures: steady),
                                check("expect: perplexity < 50", 5, of: 5, measures: steady),
                                check("expect: perplexity < 40", 1, of: 1, measures: [10]))]
        let now = [outcome("a.tide", check("expect: perplexity < 100", 5, of: 5, measures: steady.map { $0 + 3 }),
                           check("expect: perplexity < 50", 5, of: 5, measures: steady.map { $0 + 0.5 }),
                           check("expect: perplexity < 40", 1, of: 1, measures: [30]))]
        let comparison = BaselineComparison(outcomes: now, baseline: baseline)
        #expect(comparison.entries.map(\.change) == [.measureRose])
        #expect(comparison.entries.first?.now.text == "expect: perplexity < 100")
        #expect(!comparison.isRegression, "a measure has no better direction")
    }

    /// Cases are known by file, row and target; checks by their text and occurrence, so a line
    /// added above them does not make them new.
    @Test func casesAndChecksAreMatchedByWhatTheyAre() {
        let baseline = [outcome("a.tide", row: "fr", target: "plain", check("expect: x", 1, of: 1), check("expect: x", 1, of: 1, line: 4)),
                        outcome("a.tide", row: "it", target: "plain", check("expect: x", 1, of: 1)),
                        outcome("gone.tide", check("expect: x", 1, of: 1))]
        let now = [outcome("a.tide", row: "fr", target: "plain", check("expect: x", 1, of: 1, line: 7), check("expect: x", 0, of: 1, line: 8)),
                   outcome("a.tide", row: "it", target: "short", check("expect: x", 0, of: 1)),
                   outcome("new.tide", check("expect: y", 1, of: 1))]
        let comparison = BaselineComparison(outcomes: now, baseline: baseline)
        #expect(comparison.entries.map(\.change) == [.newFailure, .newCheckFailing])
        #expect(comparison.entries.map(\.now.line) == [8, 3], "the second x, and the case on a new target")
        #expect(comparison.entries.first?.then?.line == 4)
        #expect(comparison.sharedCases == 1 && comparison.newChecks == 2 && comparison.missingCases == 2)
    }
}
