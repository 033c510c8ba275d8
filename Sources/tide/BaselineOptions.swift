import ArgumentParser
import Foundation
import TideReports
import TideRunner

/// `--baseline RUN|FILE` and `--fail-on-regression` of `tide run`: set the run against an
/// earlier one (kept in the journal, or its `--json` report) and, when asked, let the regressions alone decide the exit status (docs/conversations.md,
/// "Against a baseline").
struct BaselineOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Compare this run with an earlier one: a run the journal keeps (tide runs list), or the "
                               + "standard output of tide run --json (new failures and passes, pass rates and measures that "
                               + "moved beyond noise).", valueName: "run|file"))
    var baseline: String?

    @Flag(name: .customLong("fail-on-regression"),
          help: ArgumentHelp("With --baseline: exit 1 when a check fails that held in the baseline (or is new), or holds less often "
                             + "beyond noise, and 0 when the only failures failed in the baseline too."))
    var failOnRegression = false

    func validate() throws {
        if failOnRegression && baseline == nil {
            throw ValidationError("--fail-on-regression judges the run against an earlier one: give it with --baseline RUN or --baseline FILE")
        }
    }

    /// The baseline's cases, read before anything is generated; `nil` without `--baseline`. A
    /// number that names no file names a run of the journal.
    func load() throws -> (source: String, outcomes: [ScriptOutcome])? {
        guard let baseline else { return nil }
        guard let id = Int64(baseline), !FileManager.default.fileExists(atPath: baseline) else {
            return (baseline, try BaselineFile.outcomes(at: baseline))
        }
        let (journal, run) = try RunsCommand.run(id)
        let (groups, _) = try journal.keptGroups(of: run)
        guard !groups.isEmpty else { throw CommandFailure("run \(id) kept no case to compare with (tide runs show \(id))") }
        let rate = RunsCommand.minimumPassRate(of: run)
        return ("run \(id)", groups.map { run.repetitions == 1 ? ScriptOutcome($0[0]) : ScriptOutcome(runs: $0, needing: rate) })
    }
}
