import Foundation
import TideCore
import TideRunner
import TideScript

/// `tide run --html FILE`: the run as one self-contained page (no network, no external scripts or
/// fonts): the matrix of cases × targets coloured by outcome, filters (failed only, one target,
/// one check type), and each case on each target: its replies with their checks and why they
/// failed, the reply against its recording as a word diff, teacher forcing's verdict, tool calls
/// and reasoning apart, and timings (docs/conversations.md, "The HTML report").
struct HTMLReport {
    /// Every run, in the run's order (each case on every target in turn, repetitions together).
    var results: [ScriptResult]
    /// The targets' labels; empty for a run on one target that names none.
    var targets: [String]
    /// The summary line(s) the terminal shows.
    var summary: String
    /// The command as given, shown under the title.
    var command: String
    /// Each pair of targets compared on the cases both ran (none for one target).
    var comparisons: [RunMatrix.Comparison] = []
    /// The run against its baseline (`--baseline`): where the baseline came from, and the checks that changed.
    var baseline: (source: String, comparison: BaselineComparison)? = nil

    /// The page.
    func page() -> String {
        let columns = targets.isEmpty ? [nil] : targets.map(Optional.some)
        // Cases in order, each with its runs per target.
        var order: [String] = []
        var runs: [String: [String?: [ScriptResult]]] = [:]
        for result in results {
            let key = ScriptResult.label(file: result.file, row: result.row, target: nil)
            if runs[key] == nil { order.append(key) }
            runs[key, default: [:]][result.target, default: []].append(result)
        }
        let checkNames = Set(results.flatMap { $0.replies.flatMap { $0.expectations.map(\.expectation.check.kind.name) } }).sorted()
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>tide run: \(escape(summary.split(separator: "\n").first.map(String.init) ?? ""))</title>
            <style>\(HTMLReportAssets.style)</style>
            </head>
            <body>
            <header>
            <h1>tide run</h1>
            <p id="summary">\(escape(summary).replacingOccurrences(of: "\n", with: "<br>"))</p>
            <p class="meta"><code>\(escape(command))</code> · \(escape(Self.timestamp())) · tide \(escape(tideVersion))</p>
            </header>
            <nav id="filters">
            <label><input type="checkbox" id="filter-failed"> failed only</label>
            <label>target <select id="filter-target"><option value="">all</option>\(targets.map { "<option>\(escape($0))</option>" }.joined())</select></label>
            <label>check <select id="filter-check"><option value="">all</option>\(checkNames.map { "<option>\(escape($0))</option>" }.joined())</select></label>
            <span id="shown"></span>
            </nav>

            """
        html += matrix(order: order, runs: runs, columns: columns)
        html += comparisonTable()
        html += baselineTable()
        html += "<section id=\"cases\">\n"
        for (index, key) in order.enumerated() {
            let perTarget = columns.map { runs[key]?[$0] ?? [] }
            let all = perTarget.flatMap { $0 }
            html += "<article class=\"case \(Self.outcomeClass(all))\" id=\"case-\(index)\" data-checks=\"\(escape(Self.checks(of: all)))\">\n"
            html += "<h2><a href=\"#case-\(index)\">\(escape(key))</a></h2>\n"
            for (column, target) in columns.enumerated() {
                for (run, result) in perTarget[column].enumerated() {
                    html += self.run(result, id: "case-\(index)-\(column)", target: target,
                                     number: perTarget[column].count > 1 ? run + 1 : nil)
                }
            }
            html += "</article>\n"
        }
        html += "</section>\n<script>\(HTMLReportAssets.script)</script>\n</body>\n</html>\n"
        return html
    }

    /// The matrix: a row per case, a column per target, each cell the checks held there.
    private func matrix(order: [String], runs: [String: [String?: [ScriptResult]]], columns: [String?]) -> String {
        var html = "<section id=\"matrix\"><table>\n<thead><tr><th>case</th>"
        html += columns.map { "<th data-target=\"\(escape($0 ?? ""))\">\(escape($0 ?? "checks"))</th>" }.joined()
        html += "</tr></thead>\n<tbody>\n"
        var totals = Array(repeating: (passed: 0, failed: 0, cases: 0, good: 0, errors: 0, seconds: 0.0), count: columns.count)
        for (index, key) in order.enumerated() {
            let perTarget = columns.map { runs[key]?[$0] ?? [] }
            let all = perTarget.flatMap { $0 }
            html += "<tr class=\"case \(Self.outcomeClass(all))\" data-case=\"case-\(index)\" data-checks=\"\(escape(Self.checks(of: all)))\">"
            html += "<th><a href=\"#case-\(index)\">\(escape(key))</a></th>"
            for (column, target) in columns.enumerated() {
                let cell = perTarget[column]
                guard !cell.isEmpty else {
                    html += "<td data-target=\"\(escape(target ?? ""))\">-</td>"
                    continue
                }
                let passed = cell.reduce(0) { $0 + $1.passed }, failed = cell.reduce(0) { $0 + $1.failed }
                let errors = cell.count { $0.failure != nil }
                totals[column].passed += passed
                totals[column].failed += failed
                totals[column].cases += 1
                totals[column].good += failed == 0 && errors == 0 ? 1 : 0
                totals[column].errors += errors > 0 ? 1 : 0
                totals[column].seconds += cell.reduce(0) { $0 + $1.seconds }
                html += "<td class=\"\(Self.outcomeClass(cell))\" data-target=\"\(escape(target ?? ""))\">"
                    + "<a href=\"#case-\(index)-\(column)\(cell.count > 1 ? "-1" : "")\">\(passed)/\(passed + failed)\(errors > 0 ? " error" : "")</a></td>"
            }
            html += "</tr>\n"
        }
        html += "</tbody>\n<tfoot>\n<tr><th>checks held</th>"
        html += zip(columns, totals).map { "<td data-target=\"\(escape($0 ?? ""))\">\($1.passed)/\($1.passed + $1.failed)</td>" }.joined()
        html += "</tr>\n<tr><th>cases passed</th>"
        html += zip(columns, totals).map {
            "<td data-target=\"\(escape($0 ?? ""))\">\($1.good)/\($1.cases)\($1.errors > 0 ? ", \($1.errors) could not run" : "")</td>"
        }.joined()
        html += "</tr>\n<tr><th>time</th>"
        html += zip(columns, totals).map { "<td data-target=\"\(escape($0 ?? ""))\">\(String(format: "%.1f s", $1.seconds))</td>" }.joined()
        html += "</tr>\n</tfoot>\n</table></section>\n"
        return html
    }

    /// Each pair of targets on the cases both ran: the flips each way and McNemar's p
    /// (docs/conversations.md, "Several targets"); nothing for one target.
    private func comparisonTable() -> String {
        guard !comparisons.isEmpty else { return "" }
        var html = "<section id=\"comparisons\"><table>\n<thead><tr><th>targets</th><th>cases both ran</th>"
            + "<th>pass on the first only</th><th>pass on the second only</th><th>McNemar p</th></tr></thead>\n<tbody>\n"
        for comparison in comparisons {
            html += "<tr><th>\(escape(comparison.first)) vs \(escape(comparison.second))</th><td>\(comparison.shared)</td>"
                + "<td>\(comparison.onlyFirst)</td><td>\(comparison.onlySecond)</td><td>\(String(format: "%.2g", comparison.pValue))</td></tr>\n"
        }
        return html + "</tbody>\n</table></section>\n"
    }

    /// The checks that changed since the baseline, each as it fared then and now side by side
    /// (docs/conversations.md, "Against a baseline"); nothing without a baseline.
    private func baselineTable() -> String {
        guard let (source, comparison) = baseline else { return "" }
        var html = "<section id=\"baseline\"><h2>Against the baseline \(escape(source))</h2>\n<p>\(comparison.sharedCases) cases in both: "
            + escape(RunReport.changes(in: comparison))
            + (comparison.isRegression ? " — <strong class=\"fail\">a regression</strong>" : "") + "</p>\n"
        guard !comparison.entries.isEmpty else { return html + "</section>\n" }
        html += "<table>\n<thead><tr><th>change</th><th>case</th><th>check</th><th>baseline</th><th>this run</th></tr></thead>\n<tbody>\n"
        for entry in comparison.entries {
            html += "<tr class=\"\(entry.change.isRegression ? "fail" : "pass")\"><td>\(escape(entry.change.rawValue))</td>"
                + "<td>\(escape(entry.label)):\(entry.now.line)</td><td>\(escape(entry.now.text))</td>"
                + "<td>\(escape(entry.then.map(RunReport.tally(of:)) ?? "not in the baseline"))</td>"
                + "<td>\(escape(RunReport.tally(of: entry.now)))</td></tr>\n"
        }
        return html + "</tbody>\n</table></section>\n"
    }

    /// One run of a case on a target: its error, then each reply.
    private func run(_ result: ScriptResult, id: String, target: String?, number: Int?) -> String {
        var html = "<section class=\"run \(Self.outcomeClass([result]))\" id=\"\(id)\(number.map { "-\($0)" } ?? "")\" "
            + "data-target=\"\(escape(target ?? ""))\" data-checks=\"\(escape(Self.checks(of: [result])))\">\n"
        html += "<h3>\(escape(target ?? result.name))\(number.map { " · run \($0)" } ?? "")"
            + " <span class=\"badge\">\(result.passed)/\(result.passed + result.failed)</span>"
            + " <span class=\"time\">\(String(format: "%.2f s", result.seconds))\(result.model.map { " · \(escape($0))" } ?? "")</span></h3>\n"
        if let failure = result.failure { html += "<pre class=\"error\">\(escape(failure))</pre>\n" }
        for reply in result.replies { html += self.reply(reply) }
        return html + "</section>\n"
    }

    /// A reply: the user's turn, tool calls and reasoning apart, the answer (against its
    /// recording), how the recording was checked, the checks, the timings.
    private func reply(_ reply: ReplyResult) -> String {
        let failed = reply.expectations.contains { !$0.passed } || reply.golden?.matches == false
        var html = "<div class=\"reply\(failed ? " fail" : "")\">\n"
        html += "<div class=\"turn user\"><span class=\"role\">user · line \(reply.line)</span><pre>\(escape(reply.user))</pre></div>\n"
        for round in reply.rounds {
            html += "<div class=\"tools\"><span class=\"role\">tool calls</span>"
            if !round.text.isEmpty { html += "<pre>\(escape(round.text))</pre>" }
            for (call, result) in zip(round.calls, round.results) {
                html += "<div class=\"call\"><code>\(escape(call))</code><pre class=\"result\">\(escape(result))</pre></div>"
            }
            html += "</div>\n"
        }
        if !reply.reasoning.isEmpty {
            html += "<details class=\"reasoning\"><summary>reasoning</summary><pre>\(escape(reply.reasoning))</pre></details>\n"
        }
        html += "<div class=\"turn assistant\"><span class=\"role\">assistant</span><pre>\(escape(reply.text))</pre></div>\n"
        if let recorded = reply.golden?.recorded ?? reply.recorded, recorded != reply.text {
            let against = reply.golden != nil ? "golden transcript" : "recording"
            html += "<div class=\"diff\"><span class=\"role\">against its \(against): <del>removed</del> <ins>added</ins></span><pre>"
            html += TextDiff.words(from: recorded, to: reply.text).map { piece in
                switch piece {
                case .same(let text): escape(text)
                case .removed(let text): "<del>\(escape(text))</del>"
                case .added(let text): "<ins>\(escape(text))</ins>"
                }
            }.joined()
            html += "</pre></div>\n"
        }
        if let forcing = reply.teacherForcing {
            let kind = switch forcing {
            case .confirmed(_, let nearTies): nearTies.count > 0 ? "near-ties" : "confirmed"
            case .regenerated: "regenerated"
            case .skipped: "skipped"
            }
            html += "<p class=\"forcing \(kind)\">recorded reply \(escape(forcing.description))</p>\n"
        }
        html += "<ul class=\"checks\">\n"
        for check in reply.expectations {
            html += "<li class=\"check \(check.passed ? "pass" : "fail")\" data-check=\"\(escape(check.expectation.check.kind.name))\">"
                + "<span class=\"mark\">\(check.passed ? "✓" : "✗")</span> line \(check.line): <code>\(escape(check.text))</code>"
            if !check.passed { html += " <span class=\"detail\">\(escape(check.detail))</span>" }
            if let measure = check.measure { html += " <span class=\"measure\">(\(String(format: "%.3f", measure)))</span>" }
            if let reason = check.reason { html += " <span class=\"reason\">judge: \(escape(reason))</span>" }
            html += "</li>\n"
        }
        if let golden = reply.golden {
            html += "<li class=\"check \(golden.matches ? "pass" : "fail")\" data-check=\"golden\"><span class=\"mark\">"
                + "\(golden.matches ? "✓" : "✗")</span> reply \(golden.matches ? "same as" : "differs from") the golden transcript</li>\n"
        }
        for failure in reply.hookFailures { html += "<li class=\"check fail\"><span class=\"mark\">!</span> plugin error: \(escape(failure))</li>\n" }
        if let problem = reply.formatProblem { html += "<li class=\"check fail\"><span class=\"mark\">!</span> format: \(escape(problem))</li>\n" }
        html += "</ul>\n"
        let statistics = reply.statistics
        var facts = ["\(statistics.generatedTokens) tokens", "stop: \(escape(reply.stopReason))", "\(statistics.promptTokens) prompt tokens"]
        if let first = statistics.timeToFirstToken { facts.append(String(format: "first token %.0f ms", first.seconds * 1000)) }
        if let rate = statistics.tokensPerSecond { facts.append(String(format: "%.1f tok/s", rate)) }
        if statistics.rewinds > 0 { facts.append("\(statistics.rewinds) rewinds") }
        html += "<p class=\"stats\">\(facts.joined(separator: " · "))</p>\n</div>\n"
        return html
    }

    /// `pass`, `fail` or `error` for runs together: an error wins, then a failure.
    private static func outcomeClass(_ results: [ScriptResult]) -> String {
        results.contains { $0.failure != nil } ? "error" : results.contains { $0.failed > 0 } ? "fail" : "pass"
    }

    /// The names of the checks that the runs hold, space-separated, each with `!` after it where
    /// it failed (for the filters: `contains contains!`).
    private static func checks(of results: [ScriptResult]) -> String {
        var names: Set<String> = []
        for reply in results.flatMap(\.replies) {
            for check in reply.expectations {
                names.insert(check.expectation.check.kind.name)
                if !check.passed { names.insert(check.expectation.check.kind.name + "!") }
            }
            if let golden = reply.golden {
                names.insert("golden")
                if !golden.matches { names.insert("golden!") }
            }
        }
        return names.sorted().joined(separator: " ")
    }

    /// Now, as `2026-11-28 09:15 UTC`.
    private static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date())
    }
}

/// `text` safe as HTML text and attribute values (quotes escaped too).
private func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
    }
    return escaped
}
