import ArgumentParser
import TideReports
import TideRunner

/// What a run's report is made of, for `tide run` and `tide runs report`: the report on standard
/// output (text, `--json` or `--tap`; `-q` for failures only) and the files beside it (`--junit`,
/// `--html`).
struct ReportOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Only failures and the summary.")
    var quiet = false

    @Flag(help: "Write one JSON object per case, then one summary object, on standard output instead of the report.")
    var json = false

    @Flag(help: "Write TAP (version 14) on standard output instead of the report.")
    var tap = false

    @Option(help: ArgumentHelp("Also write a JUnit XML report to this file.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Also write the run as one self-contained HTML page to this file: the matrix, filters, "
                               + "every reply with its checks.", valueName: "file"))
    var html: String?

    func validate() throws {
        if tap && json { throw ValidationError("--tap and --json both replace the report: choose one") }
    }

    /// What standard output carries; `showPasses` unless `-q`.
    func output(showPasses: Bool) -> RunReporter.Output {
        tap ? .tap : json ? .json : .text(showPasses: showPasses && !quiet, style: .standardOutput)
    }

    /// Ends the report of a run over `targets` that took `seconds`, for `command`: the JUnit file
    /// (first: written to standard output, it comes before the summary), `summary` (on standard
    /// error when standard output carries JSON or TAP), the HTML page under `counts`, and standard
    /// output flushed. False when one could not be written, said as an error: the counts stand,
    /// and the status says something went wrong.
    func close(_ reporter: RunReporter, summary: String, counts: String, targets: [String], command: String, seconds: Double) -> Bool {
        var written = true
        func save(_ text: @autoclosure () -> String, to path: String?, what: String) {
            guard let path else { return }
            do {
                try ScriptFiles.write(text(), to: path, what: what)
            } catch {
                Terminal.warn("Error: \(error)")
                written = false
            }
        }
        save(reporter.junit(seconds: seconds), to: junit, what: "the JUnit report")
        if reporter.isMachineReadable { Terminal.warn(summary) } else { Terminal.write(summary + "\n") }
        save(reporter.html(targets: targets, counts: counts, command: command), to: html, what: "the HTML report")
        do {
            try Terminal.finishOutput()
        } catch {
            Terminal.warn("Error: \(error)")
            written = false
        }
        return written
    }
}
