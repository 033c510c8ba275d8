import ArgumentParser
import TideReports
import TideRunner

/// `--baseline FILE` and `--fail-on-regression` of `tide run`: set the run against an earlier
/// one and, when asked, let the regressions alone decide the exit status (docs/conversations.md,
/// "Against a baseline").
struct BaselineOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Compare this run with an earlier one: the standard output of tide run --json "
                               + "(new failures and passes, pass rates and measures that moved beyond noise).",
                               valueName: "file"))
    var baseline: String?

    @Flag(name: .customLong("fail-on-regression"),
          help: ArgumentHelp("With --baseline: exit 1 when a check fails that held in the baseline (or is new), or holds less often "
                             + "beyond noise, and 0 when the only failures failed in the baseline too."))
    var failOnRegression = false

    func validate() throws {
        if failOnRegression && baseline == nil {
            throw ValidationError("--fail-on-regression judges the run against an earlier one: give it with --baseline FILE")
        }
    }

    /// The baseline's cases, read before anything is generated; `nil` without `--baseline`.
    func load() throws -> (source: String, outcomes: [ScriptOutcome])? {
        guard let baseline else { return nil }
        return (baseline, try BaselineFile.outcomes(at: baseline))
    }
}
