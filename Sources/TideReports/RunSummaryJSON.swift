import Foundation
import TideRunner

/// The JSON shape of the line that closes `tide run --json` (docs/conversations.md): the run's
/// counts, each pair of targets compared, and the run against its baseline.
struct RunSummaryJSON: Encodable {
    struct Summary: Encodable {
        var passed: Int
        var failed: Int
        var errors: Int
        var cases: Int
        var runs: Int
        var seconds: Double
        /// The cases run again after a server's failure, by target (`""` for a run of one).
        var retries: [String: Int]
        /// The replies given again from the reply cache rather than generated.
        var cached_replies: Int
        var comparisons: [Comparison]
        var baseline: Baseline?
    }
    struct Comparison: Encodable {
        var first: String
        var second: String
        var shared: Int
        var only_first: Int
        var only_second: Int
        var p_value: Double
    }
    /// A check as it fared in one of the two runs.
    struct Tally: Encodable {
        var passes: Int
        var runs: Int
        var passed: Bool
        var pass_rate: Double
        var interval: [Double]
        var measure_mean: Double?
        var measure_standard_error: Double?

        init(_ check: CheckOutcome) {
            passes = check.passes
            runs = check.runs
            passed = check.passed
            pass_rate = check.passRate
            interval = [check.interval.low, check.interval.high]
            measure_mean = check.measure?.mean
            measure_standard_error = check.measure?.standardError
        }
    }
    struct Change: Encodable {
        var change: String
        var `case`: String
        var line: Int
        var expectation: String
        var regression: Bool
        var then: Tally?
        var now: Tally
    }
    struct Baseline: Encodable {
        var source: String
        var shared_cases: Int
        var new_checks: Int
        var missing_cases: Int
        var regression: Bool
        var counts: [String: Int]
        var changes: [Change]

        init(_ comparison: BaselineComparison, source: String) {
            self.source = source
            shared_cases = comparison.sharedCases
            new_checks = comparison.newChecks
            missing_cases = comparison.missingCases
            regression = comparison.isRegression
            counts = Dictionary(uniqueKeysWithValues: BaselineComparison.Change.allCases.map { (Self.name($0), comparison.count($0)) })
            changes = comparison.entries.map {
                Change(change: Self.name($0.change), case: $0.label, line: $0.now.line, expectation: $0.now.text,
                       regression: $0.change.isRegression, then: $0.then.map(Tally.init), now: Tally($0.now))
            }
        }

        /// `new_failure` for "new failure".
        static func name(_ change: BaselineComparison.Change) -> String {
            change.rawValue.replacingOccurrences(of: " ", with: "_")
        }
    }
    var summary: Summary
}
