import Foundation
import TideRunner

/// `tide run --junit FILE`: JUnit XML, as CI systems read it — a `testsuite` per script (per
/// target in a run over several, its cases' checks classed by script and data row), a
/// `testcase` per check (expectation or golden comparison) with a `failure` holding what was
/// found and the reply, and an `error` testcase for a script that could not run to its end.
enum JUnitReport {
    static func xml(for outcomes: [ScriptOutcome], seconds: Double) -> String {
        let failures = outcomes.reduce(0) { $0 + $1.failed }
        let errors = outcomes.count { $0.failure != nil }
        let tests = outcomes.reduce(0) { $0 + $1.checks.count + ($1.failure == nil ? 0 : 1) }
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<testsuites name=\"tide run\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" "
                         + "time=\(attribute(String(format: "%.3f", seconds)))>"]
        // A suite per target in a run over several, else per script (each data row a suite too).
        var suites: [(name: String, outcomes: [ScriptOutcome])] = []
        for outcome in outcomes {
            let name = outcome.target ?? outcome.name + (outcome.row.map { "[\($0)]" } ?? "")
            if outcome.target != nil, let index = suites.firstIndex(where: { $0.name == name }) {
                suites[index].outcomes.append(outcome)
            } else {
                suites.append((name, [outcome]))
            }
        }
        for suite in suites {
            let suiteTests = suite.outcomes.reduce(0) { $0 + $1.checks.count + ($1.failure == nil ? 0 : 1) }
            let attributes = suite.outcomes.count == 1 || suite.outcomes.first?.target == nil
                ? " file=\(attribute(suite.outcomes[0].file))" : ""
            lines.append("  <testsuite name=\(attribute(suite.name)) tests=\"\(suiteTests)\" "
                         + "failures=\"\(suite.outcomes.reduce(0) { $0 + $1.failed })\" "
                         + "errors=\"\(suite.outcomes.count { $0.failure != nil })\" "
                         + "time=\(attribute(String(format: "%.3f", suite.outcomes.reduce(0) { $0 + $1.seconds })))\(attributes)>")
            for outcome in suite.outcomes { lines += testcases(of: outcome) }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A case's checks as test cases, classed by its script's name and row.
    private static func testcases(of outcome: ScriptOutcome) -> [String] {
        var lines: [String] = []
        let name = attribute(outcome.name + (outcome.row.map { "[\($0)]" } ?? ""))
        for check in outcome.checks {
            let opening = "    <testcase name=\(attribute("line \(check.line): \(check.text)")) classname=\(name) "
                + "file=\(attribute(outcome.file)) line=\"\(check.line)\""
            if check.passed {
                lines.append(opening + "/>")
                continue
            }
            let held = outcome.runs > 1 ? "held in \(check.passes) of \(check.runs) runs, needs \(check.rate); " : ""
            lines.append(opening + ">")
            lines.append("      <failure message=\(attribute(held + (check.detail ?? "")))>"
                         + text("reply: " + RunReport.excerpt(check.reply ?? "", limit: 400)) + "</failure>")
            lines.append("    </testcase>")
        }
        if let failure = outcome.failure {
            lines.append("    <testcase name=\"replay\" classname=\(name) file=\(attribute(outcome.file))>")
            lines.append("      <error message=\(attribute(failure))/>")
            lines.append("    </testcase>")
        }
        return lines
    }

    /// `value` as a quoted XML attribute.
    static func attribute(_ value: String) -> String {
        "\"" + text(value).replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "\n", with: "&#10;") + "\""
    }

    /// `value` as XML character data: markup escaped, and characters XML 1.0 cannot hold (control
    /// characters other than tab, line feed and carriage return) replaced by U+FFFD.
    static func text(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value): escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
