import Foundation
import TideCore
import TideRunner
import TideScript

/// What `tide run` says about each script, as text lines or as one JSON object per script.
struct RunReport {
    /// Show passing checks too (else only failures and errors).
    let showPasses: Bool
    let style: TextStyle

    /// The lines for one script: each check with file:line, failures with the reply excerpt.
    func lines(for result: ScriptResult) -> [String] {
        var lines: [String] = []
        for reply in result.replies {
            for failure in reply.hookFailures { lines.append("\(result.label):\(reply.line): plugin error: \(failure)") }
            if let problem = reply.formatProblem { lines.append("\(result.label):\(reply.line): format: \(problem)") }
            if showPasses, let forcing = reply.teacherForcing { lines.append("\(result.label):\(reply.line): reply " + style.dim("\(forcing)")) }
            for check in reply.expectations where showPasses || !check.passed {
                lines.append(check.passed ? "\(result.label):\(check.line): " + style.green("PASS") + " \(check.text)"
                                          : "\(result.label):\(check.line): " + style.red("FAIL") + " \(check.text): \(check.detail); "
                                              + "reply: \(Self.excerpt(reply.text))" + Self.note(reply.pluginNote, trace: result.trace))
            }
            if let golden = reply.golden, showPasses || !golden.matches {
                lines.append(golden.matches
                    ? "\(result.label):\(reply.line): " + style.green("PASS") + " \(CheckOutcome.goldenText)"
                    : "\(result.label):\(reply.line): " + style.red("FAIL") + " reply differs from the golden transcript:\n"
                        + golden.difference)
            }
        }
        if let failure = result.failure {
            lines.append(style.red("ERROR") + Self.context(result.label, file: result.file) + " \(failure)"
                         + Remedy.hint(for: result.remedies, naming: \.flag))
        }
        return lines
    }

    /// What plugins did to a reply whose check failed, and where the trace of their calls is.
    static func note(_ note: String?, trace: String?) -> String {
        guard let note else { return "" }
        return " — " + note + (trace.map { ": see the trace in \($0)" } ?? " (--trace-hooks records each hook call)")
    }

    /// The lines for the runs of one script under `--repeat`: each check with how many runs it
    /// held in, failures with the first failing run's finding and reply.
    func lines(for outcome: ScriptOutcome) -> [String] {
        var lines: [String] = []
        for check in outcome.checks where showPasses || !check.passed {
            let count = "(\(check.passes)/\(check.runs) runs, " + Self.figures(of: check) + (check.rate == .all ? ")" : ", needs \(check.rate))")
            lines.append(check.passed
                ? "\(outcome.label):\(check.line): " + style.green("PASS") + " \(check.text) \(count)"
                : "\(outcome.label):\(check.line): " + style.red("FAIL") + " \(check.text) \(count): \(check.detail ?? ""); "
                    + "reply: \(Self.excerpt(check.reply ?? ""))")
        }
        if let failure = outcome.failure { lines.append(style.red("ERROR") + Self.context(outcome.label, file: outcome.file) + " \(failure)") }
        return lines
    }

    /// The matrix of a run over several targets: each case's checks held per target (all of them
    /// up to ``matrixRows`` cases, else the cases that failed somewhere), then each target's
    /// totals and time.
    func lines(for matrix: RunMatrix) -> [String] {
        let shown = matrix.rows.count <= Self.matrixRows ? matrix.rows : Array(matrix.rowsWithFailures.prefix(Self.matrixRows))
        func cell(_ cell: RunMatrix.Cell?) -> String {
            guard let cell else { return "-" }
            let text = "\(cell.passed)/\(cell.passed + cell.failed)" + (cell.failure == nil ? "" : " ERROR")
            return text
        }
        var rows = [["case"] + matrix.targets]
        rows += shown.map { [$0.label] + $0.cells.map(cell) }
        let totals = matrix.totals
        rows.append(["checks held"] + totals.map { "\($0.passed)/\($0.passed + $0.failed)" })
        rows.append(["cases passed"] + totals.map { "\($0.casesPassed)/\($0.cases)" + ($0.errors > 0 ? ", \($0.errors) could not run" : "") })
        if totals.contains(where: { $0.retries > 0 }) { rows.append(["retries"] + totals.map { "\($0.retries)" }) }
        rows.append(["time"] + totals.map { String(format: "%.1f s", $0.seconds) })
        var lines = ColumnText.lines(rows)
        // Colour after aligning, so escapes do not count as width.
        for (index, row) in shown.enumerated() where !row.cells.allSatisfy({ $0?.isPass ?? true }) {
            lines[index + 1] = style.red(lines[index + 1])
        }
        let hidden = matrix.rows.count - shown.count
        let hiddenPassing = matrix.rows.count - matrix.rowsWithFailures.count
        return ["", style.bold("matrix") + " (checks held per target):"] + lines.map { "  " + $0 }
            + (hidden > 0 ? ["  (\(hidden) more cases not shown; \(hiddenPassing) of the \(matrix.rows.count) pass on every target)"] : [])
            + matrix.comparisons.map { "  " + Self.line(for: $0) }
    }

    /// A pair of targets compared: `a vs b: 3 cases pass on a only, 1 on b only, of 12 (McNemar p = 0.62)`.
    static func line(for comparison: RunMatrix.Comparison) -> String {
        let (first, second) = (comparison.first, comparison.second)
        let cases = { (count: Int) in count == 1 ? "1 case passes" : "\(count) cases pass" }
        return "\(first) vs \(second): \(cases(comparison.onlyFirst)) on \(first) only, \(comparison.onlySecond) on \(second) only, "
            + "of \(comparison.shared) (McNemar p = " + String(format: "%.2g", comparison.pValue) + ")"
    }

    /// A repeated check's pass rate, its 95% interval, pass@N and its measure's mean:
    /// `80% [38–96%], pass@5 1.00, mean 0.83 ± 0.02`.
    static func figures(of check: CheckOutcome) -> String {
        rate(of: check) + (check.runs > 1 ? String(format: ", pass@%d %.2f", check.runs, check.passAtK.last ?? 0) : "")
            + (check.measure.map { ", mean " + measure($0) } ?? "")
    }

    /// A pass rate and its 95% interval: `80% [38–96%]`.
    static func rate(of check: CheckOutcome) -> String {
        let percent = { (value: Double) in String(format: "%.0f", value * 100) }
        let interval = check.interval
        return "\(percent(check.passRate))% [\(percent(interval.low))–\(percent(interval.high))%]"
    }

    /// A measure's mean and its standard error: `0.83 ± 0.02` (`0.83` from one run).
    static func measure(_ measure: (mean: Double, standardError: Double?)) -> String {
        String(format: "%.4g", measure.mean) + (measure.standardError.map { String(format: " ± %.2g", $0) } ?? "")
    }

    /// How a check fared in a run, for the comparison with a baseline: `held` or `failed` in one
    /// run, `4/5, 80% [38–96%]` in several, and its measure.
    static func tally(of check: CheckOutcome) -> String {
        (check.runs == 1 ? (check.passes == 1 ? "held" : "failed") : "\(check.passes)/\(check.runs), " + rate(of: check))
            + (check.measure.map { ", " + (check.runs == 1 ? "" : "mean ") + measure($0) } ?? "")
    }

    /// The changes of a comparison with a baseline counted: `2 new failures, 1 pass rate fell`, or
    /// that there are none.
    static func changes(in comparison: BaselineComparison) -> String {
        let counted = BaselineComparison.Change.allCases.compactMap { change -> String? in
            let count = comparison.count(change)
            guard count > 0 else { return nil }
            let one = count == 1
            return switch change {
            case .newFailure: "\(count) new failure" + (one ? "" : "s")
            case .newPass: "\(count) new pass" + (one ? "" : "es")
            case .newCheckFailing: "\(count) new check" + (one ? "" : "s") + " failing"
            case .rateFell, .rateRose, .measureFell, .measureRose:
                "\(count) " + change.rawValue.replacingOccurrences(of: "rate", with: one ? "rate" : "rates")
                    .replacingOccurrences(of: "measure", with: one ? "measure" : "measures")
            }
        }
        return counted.isEmpty ? "no check changed beyond noise" : counted.joined(separator: ", ")
    }

    /// A run against its baseline (`source`): the cases both have and each kind of change
    /// counted, then the checks that changed (up to ``matrixRows``), each as it fared then and now.
    func lines(for comparison: BaselineComparison, source: String) -> [String] {
        let changes = Self.changes(in: comparison)
        let plural = { (count: Int, noun: String) in "\(count) \(noun)\(count == 1 ? "" : "s")" }
        var lines = ["", style.bold("against the baseline") + " \(source) (" + plural(comparison.sharedCases, "case") + " in both"
            + (comparison.newChecks > 0 ? ", " + plural(comparison.newChecks, "new check") : "")
            + (comparison.missingCases > 0 ? ", " + plural(comparison.missingCases, "case") + " of it not run" : "") + "): "
            + changes
            + (comparison.isRegression ? "; " + style.red("a regression") : "")]
        for entry in comparison.entries.prefix(Self.matrixRows) {
            let line = "  \(entry.change.rawValue): \(entry.label):\(entry.now.line) \(entry.now.text): "
                + (entry.then.map { Self.tally(of: $0) + " then" } ?? "not in the baseline") + ", \(Self.tally(of: entry.now)) now"
            lines.append(entry.change.isRegression ? style.red(line) : line)
        }
        if comparison.entries.count > Self.matrixRows { lines.append("  (\(comparison.entries.count - Self.matrixRows) more not shown)") }
        return lines
    }

    /// The most cases the matrix shows.
    static let matrixRows = 40

    /// ` target: file[row]` before an error, where a label says more than the file its message names.
    private static func context(_ label: String, file: String) -> String {
        label == file ? "" : " \(label):"
    }

    /// What `--repeat` does to seeds, said once after the summary.
    static func repetitionNote(runs: Int) -> String {
        "each script ran \(runs) times; run r added r-1 to every reply's seed (0 where none is set)"
    }

    /// One line of JSON describing the runs of a script under `--repeat`.
    static func json(for outcome: ScriptOutcome) -> String {
        JSONOutput.line(RepeatedJSON(outcome))
    }

    /// The start of a reply, quoted, for failure lines.
    static func excerpt(_ text: String, limit: Int = 160) -> String {
        text.count <= limit ? QuotedString.quote(text) : QuotedString.quote(String(text.prefix(limit))) + "…"
    }

    /// `N passed, N failed`, then what else happened, and how the recorded replies were checked.
    static func summary(passed: Int, failed: Int, errors: Int, scripts: Int, rows: Int = 0, targets: Int = 1, retries: Int = 0,
                        seconds: Double, forcing: [TeacherForcing] = []) -> String {
        var line = "\(passed) passed, \(failed) failed"
        if errors > 0 { line += ", \(errors) \(rows > 0 || targets > 1 ? "case" : "script")\(errors == 1 ? "" : "s") could not run" }
        line += " (\(scripts) script\(scripts == 1 ? "" : "s"), "
            + (rows > 0 ? "\(rows) data row\(rows == 1 ? "" : "s"), " : "")
            + (targets > 1 ? "\(targets) targets, " : "")
            + (retries > 0 ? "\(retries) retr\(retries == 1 ? "y" : "ies") of a server's failure, " : "")
            + String(format: "%.1f s", seconds) + ")"
        guard !forcing.isEmpty else { return line }
        let confirmed = forcing.count { if case .confirmed = $0 { true } else { false } }
        let nearTies = forcing.count { if case .confirmed(_, let nearTies) = $0 { nearTies.count > 0 } else { false } }
        let regenerated = forcing.count { if case .regenerated = $0 { true } else { false } }
        let parts = [(confirmed, "confirmed by teacher forcing" + (nearTies > 0 ? " (\(nearTies) within tolerance)" : "")),
                     (regenerated, "regenerated from where the model chose otherwise"),
                     (forcing.count - confirmed - regenerated, "regenerated whole")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return line + "\nrecorded replies: " + parts.joined(separator: ", ")
    }

    /// How many of `replies` replies the reply cache gave again (`given`), and the time they had
    /// taken to generate.
    static func cacheNote(given: [ReplyCacheHit], of replies: Int) -> String {
        String(format: "replies: %d of %d from the cache, not generated again (they had taken %.1f s, summed over replies)",
               given.count, replies,
               given.reduce(0) { $0 + $1.seconds })
    }

    /// One line of JSON describing a script's replay.
    static func json(for result: ScriptResult) -> String {
        JSONOutput.line(ScriptJSON(result))
    }

}

/// The JSON shape of a script's result (docs/conversations.md).
private struct ScriptJSON: Encodable {
    struct Check: Encodable {
        var line: Int
        var expectation: String
        var passed: Bool
        var detail: String?
        /// What a measuring check found (a similarity, a perplexity).
        var measure: Double?
        /// A judge's reason, passed or not.
        var reason: String?
    }
    struct Golden: Encodable {
        var matches: Bool
        var recorded: String?
        var diff: String?
    }
    struct Reply: Encodable {
        var line: Int
        var user: String
        var reply: String
        var stop_reason: String
        var tokens: Int
        var prompt_tokens: Int
        /// Prompt tokens not evaluated: held from an earlier turn, or loaded from a kept state.
        var cached_prompt_tokens: Int
        /// Set when the reply came from the reply cache; absent when it was generated.
        var cached: Bool?
        var time_to_first_token: Double?
        var tokens_per_second: Double?
        var rewinds: Int
        var tokens_taken_back: Int
        var expectations: [Check]
        var plugin_errors: [String]
        /// What the plugins did that a failed check may come from, and where their trace is.
        var plugin_note: String?
        /// What each plugin's hooks cost over the reply; absent when none was called.
        var plugin_costs: [PluginCostJSON]?
        var format_problem: String?
        var golden: Golden?
        var teacher_forcing: Forcing?
        var parameters: ParametersJSON
        var tool_calls: [ToolCallRun]
        /// The reply's tokens scored, when it was made with them; absent otherwise.
        var logprobs: LogprobsJSON?
    }
    /// A tool the reply called and what it gave.
    struct ToolCallRun: Encodable {
        var name: String
        var arguments: String
        var result: String
        var failed: Bool
        var seconds: Double

        init(_ result: ToolResult) {
            name = result.call.name
            arguments = result.call.arguments
            self.result = result.content
            failed = result.failed
            seconds = result.duration.seconds
        }
    }
    /// How a recorded reply was checked: `confirmed` (with `tokens`, `near_ties` and, when there
    /// are some, `largest_margin`), `regenerated` (with `from_token`), or `skipped` (with `reason`).
    struct Forcing: Encodable {
        var outcome: String
        var tokens: Int?
        var near_ties: Int?
        var largest_margin: Float?
        var from_token: Int?
        var reason: String?

        init(_ forcing: TeacherForcing) {
            switch forcing {
            case .confirmed(let tokens, let nearTies):
                outcome = "confirmed"
                self.tokens = tokens
                near_ties = nearTies.count
                largest_margin = nearTies.count > 0 ? nearTies.largestMargin : nil
            case .regenerated(let from): outcome = "regenerated"; from_token = from
            case .skipped(let reason): outcome = "skipped"; self.reason = "\(reason)"
            }
        }
    }
    var file: String
    var name: String
    var row: String?
    var target: String?
    var model: String?
    var passed: Int
    var failed: Int
    var error: String?
    var seconds: Double
    /// Where this run's trace of the case's hook calls is (`--trace-hooks`).
    var trace: String?
    var replies: [Reply]

    init(_ result: ScriptResult) {
        file = result.file
        trace = result.trace
        name = result.name
        row = result.row
        target = result.target
        seconds = result.seconds
        model = result.model
        passed = result.passed
        failed = result.failed
        error = result.failure.map { $0 + Remedy.hint(for: result.remedies, naming: \.flag) }
        replies = result.replies.map { reply in
            Reply(line: reply.line, user: reply.user, reply: reply.text, stop_reason: reply.stopReason,
                  tokens: reply.statistics.generatedTokens, prompt_tokens: reply.statistics.promptTokens,
                  cached_prompt_tokens: reply.statistics.reusedPromptTokens, cached: reply.statistics.cached.map { _ in true },
                  time_to_first_token: reply.statistics.timeToFirstToken?.seconds,
                  tokens_per_second: reply.statistics.tokensPerSecond,
                  rewinds: reply.statistics.rewinds, tokens_taken_back: reply.statistics.discardedTokens,
                  expectations: reply.expectations.map { Check(line: $0.line, expectation: $0.text, passed: $0.passed,
                                                               detail: $0.passed ? nil : $0.detail, measure: $0.measure,
                                                               reason: $0.reason) },
                  plugin_errors: reply.hookFailures, plugin_note: reply.pluginNote,
                  plugin_costs: PluginCostJSON.all(of: reply.statistics),
                  format_problem: reply.formatProblem,
                  golden: reply.golden.map { Golden(matches: $0.matches, recorded: $0.recorded,
                                                    diff: $0.matches ? nil : $0.difference) },
                  teacher_forcing: reply.teacherForcing.map(Forcing.init), parameters: ParametersJSON(reply.parameters),
                  tool_calls: reply.statistics.toolResults.map(ToolCallRun.init), logprobs: LogprobsJSON(reply.logprobs))
        }
    }
}

/// The JSON shape of a script's runs under `--repeat` (docs/conversations.md).
private struct RepeatedJSON: Encodable {
    struct Check: Encodable {
        var line: Int
        var expectation: String
        var passes: Int
        var runs: Int
        var min_pass: Double
        var passed: Bool
        var detail: String?
        var pass_rate: Double
        var interval: [Double]
        var pass_at_k: [Double]
        /// What it measured in each run, with their mean and its standard error; absent for a
        /// check that does not measure.
        var measures: [Double]?
        var measure_mean: Double?
        var measure_standard_error: Double?
    }
    var file: String
    var name: String
    var row: String?
    var target: String?
    var runs: Int
    var passed: Int
    var failed: Int
    var error: String?
    var seconds: Double
    var checks: [Check]

    init(_ outcome: ScriptOutcome) {
        file = outcome.file
        name = outcome.name
        row = outcome.row
        target = outcome.target
        seconds = outcome.seconds
        runs = outcome.runs
        passed = outcome.passed
        failed = outcome.failed
        error = outcome.failure
        checks = outcome.checks.map {
            Check(line: $0.line, expectation: $0.text, passes: $0.passes, runs: $0.runs, min_pass: $0.rate.fraction,
                  passed: $0.passed, detail: $0.passed ? nil : $0.detail, pass_rate: $0.passRate,
                  interval: [$0.interval.low, $0.interval.high], pass_at_k: $0.passAtK,
                  measures: $0.measures.isEmpty ? nil : $0.measures, measure_mean: $0.measure?.mean,
                  measure_standard_error: $0.measure?.standardError)
        }
    }
}
