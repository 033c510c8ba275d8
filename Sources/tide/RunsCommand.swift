import ArgumentParser
import Foundation
import TideCore
import TideJournal
import TideReports
import TideRunner
import TideScript

/// `tide runs`: the runs of `tide run` that the journal keeps — listed, shown case by case, and
/// any one's report made again without generating (docs/conversations.md, "Runs that last").
struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List the runs of tide run that the journal keeps, show one, or make its report again.",
        discussion: """
            tide run keeps every run, and every case as it finishes, in $XDG_DATA_HOME/tide/runs.db \
            (~/.local/share/tide/runs.db); tide run --resume goes on with one that stopped.

            Examples:
              tide runs                          # the newest runs
              tide runs show 12                  # its cases, and those it lacks
              tide runs report 12 --html r.html  # its report again, as tide run wrote it
              tide runs remove --keep 50         # all but the newest 50 runs
            """,
        subcommands: [List.self, Show.self, Report.self, Remove.self],
        defaultSubcommand: List.self
    )

    /// The journal, when one exists; reading never creates it.
    static func journal() throws -> RunJournal? {
        let path = RunJournal.standardLocation()
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        return try RunJournal(path: path)
    }

    /// The run numbered `id`, or the error that says there is none.
    static func run(_ id: Int64) throws -> (RunJournal, JournaledRun) {
        guard let journal = try journal() else {
            throw CommandFailure("no run is kept yet (the journal will be \(RunJournal.standardLocation().path))")
        }
        guard let run = try journal.run(id) else {
            throw CommandFailure("there is no run \(id) in the journal (tide runs list shows the runs kept)")
        }
        return (journal, run)
    }

    /// The share of runs each check of `run` needed: its own `--min-pass`, read back from its arguments.
    static func minimumPassRate(of run: JournaledRun) -> PassRate? {
        (try? RunCommand.parse(run.arguments))?.minimumPassRate
    }

    /// `finished`, or how far an unfinished run got.
    static func state(of run: JournaledRun) -> String {
        run.isFinished ? "finished" : "unfinished, \(run.kept) of \(run.jobs) kept"
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the newest runs, newest first.")

        @Option(name: [.customShort("n"), .customLong("count")], parsing: .unconditional, help: "How many runs.")
        var count = 20

        @Flag(help: "One JSON object per run.")
        var json = false

        func validate() throws {
            if count < 1 { throw ValidationError("--count must be at least 1, not \(count)") }
        }

        func run() throws {
            guard let journal = try RunsCommand.journal() else {
                if !json { print("No run is kept yet; the journal will be \(RunJournal.standardLocation().path).") }
                return
            }
            let runs = try journal.runs(limit: count)
            if json {
                for run in runs { print(JSONOutput.line(run)) }
                return
            }
            let rows = [["run", "started", "state", "checks", "command", "folder"]] + runs.map { run in
                [String(run.id), ISO8601DateFormatter().string(from: run.started), RunsCommand.state(of: run),
                 run.passed.map { "\($0) passed, \(run.failed ?? 0) failed" + ((run.errors ?? 0) > 0 ? ", \(run.errors!) errors" : "") } ?? "-",
                 run.command, run.folder]
            }
            for line in ColumnText.lines(rows) { print(line) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a run: its command, and each case it kept.")

        @Argument(help: "The run's number (tide runs list).")
        var id: Int64

        @Flag(help: "The run and its cases as JSON.")
        var json = false

        func run() throws {
            let (journal, run) = try RunsCommand.run(id)
            let (cases, damaged) = try journal.keptCases(of: run.id)
            if json {
                struct Case: Encodable {
                    var `case`: String
                    var repetition: Int
                    var passed: Int
                    var failed: Int
                    var error: String?
                    var seconds: Double
                }
                struct Shown: Encodable {
                    var run: JournaledRun
                    var cases: [Case]
                    var damaged: [String]
                }
                print(JSONOutput.line(Shown(run: run, cases: cases.map {
                    Case(case: ScriptResult.label(file: $0.key.file, row: $0.key.row, target: $0.key.target), repetition: $0.key.repetition + 1,
                         passed: $0.result.passed, failed: $0.result.failed, error: $0.result.failure, seconds: $0.result.seconds)
                }, damaged: damaged.map(\.description))))
                return
            }
            print("run \(run.id): \(run.command)")
            print("in \(run.folder), started \(ISO8601DateFormatter().string(from: run.started)), \(RunsCommand.state(of: run))")
            let rows = [["case", "checks", "time"]] + cases.map { kept in
                [kept.key.description, "\(kept.result.passed)/\(kept.result.passed + kept.result.failed)" + (kept.result.failure == nil ? "" : " ERROR"),
                 String(format: "%.1f s", kept.result.seconds)]
            }
            for line in ColumnText.lines(rows) { print("  " + line) }
            if !damaged.isEmpty { print("damaged in the journal (run again on resuming): " + damaged.map(\.description).joined(separator: ", ")) }
            if !run.isFinished {
                print("\(run.jobs - cases.count) runs of cases missing; go on with: \(run.resumeCommand) (in \(run.folder))")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove runs, and the cases they kept, from the journal.")

        @Argument(help: "The runs' numbers (tide runs list).")
        var ids: [Int64] = []

        @Option(parsing: .unconditional, help: ArgumentHelp("Remove every run but the newest N.", valueName: "N"))
        var keep: Int?

        func validate() throws {
            if ids.isEmpty == (keep == nil) { throw ValidationError("give the runs to remove, or --keep N: one of the two") }
            if let keep, keep < 0 { throw ValidationError("--keep must be 0 or more, not \(keep)") }
        }

        func run() throws {
            guard let journal = try RunsCommand.journal() else {
                throw CommandFailure("no run is kept yet (the journal will be \(RunJournal.standardLocation().path))")
            }
            let asked = try keep.map { try journal.runs(olderThanNewest: $0) } ?? ids
            let removed = try journal.remove(asked)
            let missing = asked.filter { !removed.contains($0) }
            print("removed \(removed.count) run\(removed.count == 1 ? "" : "s")" + (removed.isEmpty ? "" : ": " + removed.map(String.init).joined(separator: ", ")))
            if !missing.isEmpty {
                throw CommandFailure("no run " + missing.map(String.init).joined(separator: ", ") + " in the journal (tide runs list shows the runs kept)")
            }
        }
    }

    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a kept run's report again, as tide run wrote it, without generating.",
            discussion: "The exit status is the run's: 0 when every check held, 1 when one failed, 2 when a case could not run.")

        @Argument(help: "The run's number (tide runs list).")
        var id: Int64

        @OptionGroup var report: ReportOptions

        func run() throws {
            let (journal, run) = try RunsCommand.run(id)
            let (groups, damaged) = try journal.keptGroups(of: run)
            if !damaged.isEmpty {
                Terminal.warn("warning: left out, damaged in the journal: " + damaged.map(\.description).joined(separator: ", "))
            }
            var reporter = RunReporter(output: report.output(showPasses: true), repetitions: run.repetitions,
                                       minimumPassRate: RunsCommand.minimumPassRate(of: run), keepsResults: report.html != nil)
            for line in reporter.header { Terminal.write(line + "\n") }
            let results = groups.flatMap { $0 }
            let seconds = results.reduce(0) { $0 + $1.seconds }
            for group in groups { for line in reporter.lines(for: group) { Terminal.write(line + "\n") } }
            for line in reporter.footer(targets: run.targets, seconds: seconds) { Terminal.write(line + "\n") }
            let files = Set(results.map(\.file)).count
            let rows = Set(results.compactMap { result in result.row.map { "\(result.file)\u{0}\($0)" } }).count
            let counts = reporter.counts(scripts: files, rows: rows, targets: max(run.targets.count, 1), seconds: seconds)
            let summary = reporter.summary(counts: counts, targets: run.targets) + "\nrun \(run.id), \(RunsCommand.state(of: run)): \(run.command)"
            let failed = !report.close(reporter, summary: summary, counts: counts, targets: run.targets, command: run.command, seconds: seconds)
            if reporter.errors > 0 || failed { throw ExitCode(2) }
            if reporter.failed > 0 { throw ExitCode(1) }
        }
    }
}
