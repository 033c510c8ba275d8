import Foundation
import TideCore
import TideRunner
import TideScript

/// What `tide run` reports, from the runs of each case as they are done to the summary and the
/// report files: each group's lines in the chosen output (text, JSON lines or TAP), the counts,
/// the summary (with the matrix of a run over several targets), and the JUnit and HTML files.
/// The command hands it each group's runs in order and writes what it returns.
public struct RunReporter {
    /// What standard output carries.
    public enum Output: Sendable {
        /// The report as text: failures, and passes too when `showPasses`, in `style`.
        case text(showPasses: Bool, style: TextStyle)
        /// One JSON object per case.
        case json
        /// TAP version 14.
        case tap
    }

    private let output: Output
    private let repetitions: Int
    private let minimumPassRate: PassRate?
    private let keepsResults: Bool
    private var tap = TAPReport()
    private var outcomes: [ScriptOutcome] = []
    private var results: [ScriptResult] = []
    private var forcing: [TeacherForcing] = []
    /// Replies so far, and those given again from the reply cache.
    private var replies = 0
    private var cached: [ReplyCacheHit] = []
    /// Checks held, checks failed, and cases that could not run, so far.
    public private(set) var passed = 0, failed = 0, errors = 0

    /// A reporter of runs of `repetitions` each (under `--repeat`, each check must hold in
    /// `minimumPassRate` of them, unless a script says otherwise); `keepsResults` keeps every
    /// run for an HTML page.
    public init(output: Output, repetitions: Int, minimumPassRate: PassRate?, keepsResults: Bool) {
        self.output = output
        self.repetitions = repetitions
        self.minimumPassRate = minimumPassRate
        self.keepsResults = keepsResults
    }

    /// Whether standard output carries machine-readable lines (the summary then goes to standard error).
    public var isMachineReadable: Bool {
        if case .text = output { return false }
        return true
    }

    /// The lines before any case's: TAP's version line.
    public var header: [String] {
        if case .tap = output { return [TAPReport.header] }
        return []
    }

    /// The lines of one case on one target, from its runs (one per repetition), counted.
    public mutating func lines(for runs: [ScriptResult]) -> [String] {
        let outcome = repetitions == 1 ? ScriptOutcome(runs[0]) : ScriptOutcome(runs: runs, needing: minimumPassRate)
        outcomes.append(outcome)
        if keepsResults { results += runs }
        passed += outcome.passed
        failed += outcome.failed
        errors += outcome.failure == nil ? 0 : 1
        forcing += runs.flatMap { $0.replies.compactMap(\.teacherForcing) }
        replies += runs.reduce(0) { $0 + $1.replies.count }
        cached += runs.flatMap { $0.replies.compactMap(\.statistics.cached) }
        switch output {
        case .tap: return tap.lines(for: outcome)
        case .json: return [repetitions == 1 ? RunReport.json(for: runs[0]) : RunReport.json(for: outcome)]
        case .text(let showPasses, let style):
            let report = RunReport(showPasses: showPasses, style: style)
            return repetitions == 1 ? report.lines(for: runs[0]) : report.lines(for: outcome)
        }
    }

    /// The earlier run this one is set against (`--baseline`): where it came from and its cases.
    public var baseline: (source: String, outcomes: [ScriptOutcome])?

    /// This run against ``baseline``, when there is one.
    public var baselineComparison: BaselineComparison? {
        baseline.map { BaselineComparison(outcomes: outcomes, baseline: $0.outcomes) }
    }

    /// The lines after every case's: TAP's plan, or the JSON summary of the run over `targets`
    /// (their labels), which took `seconds`.
    public func footer(targets: [String], seconds: Double) -> [String] {
        switch output {
        case .tap: return [tap.plan]
        case .text: return []
        case .json:
            let comparisons = targets.count > 1 ? RunMatrix(outcomes: outcomes, targets: targets).comparisons : []
            return [JSONOutput.line(RunSummaryJSON(summary: .init(
                passed: passed, failed: failed, errors: errors, cases: outcomes.count, runs: repetitions, seconds: seconds,
                retries: Dictionary(outcomes.map { ($0.target ?? "", $0.retries) }, uniquingKeysWith: +),
                cached_replies: cached.count,
                comparisons: comparisons.map {
                    .init(first: $0.first, second: $0.second, shared: $0.shared, only_first: $0.onlyFirst, only_second: $0.onlySecond,
                          p_value: $0.pValue)
                },
                baseline: baseline.flatMap { baseline in baselineComparison.map { .init($0, source: baseline.source) } })))]
        }
    }

    /// The counts of the run (`scripts` files, `rows` data rows, on `targets`, in `seconds`), and
    /// how the recorded replies were checked; the note on seeds under `--repeat`.
    public func counts(scripts: Int, rows: Int, targets: Int, seconds: Double) -> String {
        var summary = RunReport.summary(passed: passed, failed: failed, errors: errors, scripts: scripts, rows: rows, targets: targets,
                                        retries: outcomes.reduce(0) { $0 + $1.retries }, seconds: seconds, forcing: forcing)
        if !cached.isEmpty { summary += "\n" + RunReport.cacheNote(given: cached, of: replies) }
        if repetitions > 1 { summary += "\n" + RunReport.repetitionNote(runs: repetitions) }
        return summary
    }

    /// The summary: the matrix of a run over several `targets` (their labels), the run against its
    /// baseline, then `counts`.
    public func summary(counts: String, targets: [String]) -> String {
        let style: TextStyle
        if case .text(_, let textStyle) = output { style = textStyle } else { style = TextStyle(enabled: false) }
        let report = RunReport(showPasses: false, style: style)
        var lines = targets.count > 1 ? report.lines(for: RunMatrix(outcomes: outcomes, targets: targets)) : []
        if let baseline, let comparison = baselineComparison { lines += report.lines(for: comparison, source: baseline.source) }
        return (lines + [counts]).joined(separator: "\n")
    }

    /// The JUnit XML of the run, which took `seconds`.
    public func junit(seconds: Double) -> String {
        JUnitReport.xml(for: outcomes, seconds: seconds)
    }

    /// The HTML page of the run over `targets` (their labels), under `counts`, for `command`;
    /// it needs every run kept (`keepsResults`).
    public func html(targets: [String], counts: String, command: String) -> String {
        precondition(keepsResults, "an HTML page shows every run")
        let comparisons = targets.count > 1 ? RunMatrix(outcomes: outcomes, targets: targets).comparisons : []
        return HTMLReport(results: results, targets: targets, summary: counts, command: command, comparisons: comparisons,
                          baseline: baseline.flatMap { baseline in baselineComparison.map { (baseline.source, $0) } }).page()
    }
}
