import Foundation
import TidePluginHarness

/// `tide plugins test`'s output, as `tide run` gives its own: a line per test (passes with `-v`),
/// a summary; TAP (``TAPReport``'s conventions); JUnit XML (``JUnitReport``'s).
public enum PluginTestReports {
    /// The lines of one file's tests: failures always, with where and why; passes and pending
    /// tests with `verbose`; a file that could not run as an error.
    public static func lines(for report: PluginTestReport, verbose: Bool, style: TextStyle) -> [String] {
        if let failure = report.failure { return ["\(report.path): " + style.red("ERROR") + " \(failure)"] }
        if report.results.isEmpty { return ["\(report.path): " + style.red("ERROR") + " no tests (declare them with it(\"…\", function() … end))"] }
        return report.results.compactMap { result in
            switch result.outcome {
            case .passed: verbose ? "\(report.path): " + style.green("PASS") + " \(result.name)" : nil
            case .pending: verbose ? "\(report.path): " + style.dim("PENDING") + " \(result.name)" : nil
            case .failed(let message): "\(report.path): " + style.red("FAIL") + " \(result.name)\n    \(message)"
            }
        }
    }

    /// The closing line: `12 passed, 1 failed (3 files, 0.4 s)`, pending tests and files that
    /// could not run named when there are some.
    public static func summary(_ reports: [PluginTestReport], seconds: Double) -> String {
        let results = reports.flatMap(\.results)
        let passed = results.count { $0.outcome == .passed }
        let pending = results.count { $0.outcome == .pending }
        let errors = reports.count { $0.failure != nil || $0.results.isEmpty }
        return "\(passed) passed, \(results.count - passed - pending) failed"
            + (pending > 0 ? ", \(pending) pending" : "") + (errors > 0 ? ", \(errors) file\(errors == 1 ? "" : "s") could not run" : "")
            + String(format: " (%d file%@, %.1f s)", reports.count, reports.count == 1 ? "" : "s", seconds)
    }

    /// TAP version 14: a test point per test (a pending one as `# SKIP`), a `not ok` point per file
    /// that could not run, the plan last.
    public static func tap(_ reports: [PluginTestReport]) -> [String] {
        var lines = [TAPReport.header]
        var number = 0
        for report in reports {
            for result in report.results {
                number += 1
                let point = TAPReport.description("\(report.path): \(result.name)")
                switch result.outcome {
                case .passed: lines.append("ok \(number) - \(point)")
                case .pending: lines.append("ok \(number) - \(point) # SKIP pending")
                case .failed(let message):
                    lines.append("not ok \(number) - \(point)")
                    lines += TAPReport.block(["message": message])
                }
            }
            if report.failure != nil || report.results.isEmpty {
                number += 1
                lines.append("not ok \(number) - " + TAPReport.description("\(report.path): the file could not run"))
                lines += TAPReport.block(["message": report.failure ?? "no tests"])
            }
        }
        return lines + ["1..\(number)"]
    }

    /// JUnit XML: a `testsuite` per file, a `testcase` per test (`failure`, `skipped`), an
    /// `error` case for a file that could not run.
    public static func junit(_ reports: [PluginTestReport], seconds: Double) -> String {
        func counts(_ report: PluginTestReport) -> (tests: Int, failures: Int, errors: Int) {
            let broken = report.failure != nil || report.results.isEmpty ? 1 : 0
            return (report.results.count + broken, report.results.count { if case .failed = $0.outcome { true } else { false } }, broken)
        }
        let all = reports.map(counts)
        let tests = all.reduce(0) { $0 + $1.tests }, failures = all.reduce(0) { $0 + $1.failures }, errors = all.reduce(0) { $0 + $1.errors }
        let time = JUnitReport.attribute(String(format: "%.3f", seconds))
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<testsuites name=\"tide plugins test\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\(time)>"]
        for report in reports {
            let (tests, failures, errors) = counts(report)
            let name = JUnitReport.attribute(URL(fileURLWithPath: report.path).lastPathComponent)
            let time = JUnitReport.attribute(String(format: "%.3f", report.results.reduce(0) { $0 + $1.seconds }))
            let file = JUnitReport.attribute(report.path)
            lines.append("  <testsuite name=\(name) tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\(time) file=\(file)>")
            for result in report.results {
                let opening = "    <testcase name=\(JUnitReport.attribute(result.name)) classname=\(name) "
                    + "time=\(JUnitReport.attribute(String(format: "%.3f", result.seconds)))"
                switch result.outcome {
                case .passed: lines.append(opening + "/>")
                case .pending: lines += [opening + ">", "      <skipped message=\"pending\"/>", "    </testcase>"]
                case .failed(let message):
                    lines += [opening + ">", "      <failure message=\(JUnitReport.attribute(message))/>", "    </testcase>"]
                }
            }
            if report.failure != nil || report.results.isEmpty {
                lines += ["    <testcase name=\"load\" classname=\(name)>",
                          "      <error message=\(JUnitReport.attribute(report.failure ?? "no tests"))/>", "    </testcase>"]
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }
}
