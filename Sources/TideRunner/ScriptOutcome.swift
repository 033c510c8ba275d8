import TideScript

/// What a script's checks came to over its runs (one, or `tide run --repeat N`): each
/// expectation, and each golden comparison, with how many runs it held in and the share it
/// needed. Reports for CI (JUnit, TAP) and the report of repeated runs read this.
public struct ScriptOutcome: Sendable {
    /// The script file.
    public var file: String
    /// The script's name.
    public var name: String
    /// Its checks, in script order.
    public var checks: [CheckOutcome]
    /// Why a run could not be replayed to its end (the first such run's reason), if one could not.
    public var failure: String?
    /// How many runs there were.
    public var runs: Int
    /// The data row the runs took, when the script is fed by data.
    public var row: String?
    /// The target they ran on, in a run of several.
    public var target: String?
    /// How long the runs took together, in seconds.
    public var seconds: Double
    /// How many times its runs were run again after a server's failure (``ScriptResult/retries``).
    public var retries = 0

    /// How reports name it (``ScriptResult/label``).
    public var label: String { ScriptResult.label(file: file, row: row, target: target) }

    /// Checks that held in enough runs.
    public var passed: Int { checks.count(where: \.passed) }
    /// Checks that did not.
    public var failed: Int { checks.count - passed }

    /// An outcome as a report read back gives it (``BaselineComparison``).
    public init(file: String, name: String, checks: [CheckOutcome], failure: String?, runs: Int, row: String?, target: String?,
                seconds: Double) {
        self.file = file
        self.name = name
        self.checks = checks
        self.failure = failure
        self.runs = runs
        self.row = row
        self.target = target
        self.seconds = seconds
    }

    /// The outcome of one run: each check held or not.
    public init(_ result: ScriptResult) {
        self.init(runs: [result], rates: [])
    }

    /// The outcome of several runs of one script, each expectation needing the share of runs its
    /// script's `@min-pass` says, else `rate` (`--min-pass`), else every run.
    public init(runs results: [ScriptResult], needing rate: PassRate?) {
        self.init(runs: results, rates: results.lazy.compactMap(\.transcript).first?.minimumPassRates(default: rate ?? .all) ?? [])
    }

    /// The outcome of several runs of one script: expectation `i` passes when it held in at
    /// least `rates[i]` of the runs (every run where no rate is given). A run that ended early
    /// counts as failing the checks it did not reach.
    public init(runs results: [ScriptResult], rates: [PassRate]) {
        precondition(!results.isEmpty, "an outcome has at least one run")
        file = results[0].file
        name = results[0].name
        runs = results.count
        row = results[0].row
        target = results[0].target
        seconds = results.reduce(0) { $0 + $1.seconds }
        retries = results.reduce(0) { $0 + $1.retries }
        failure = results.lazy.compactMap(\.failure).first
        let perRun = results.map(Self.checks(of:))
        // The checks of the run that got furthest name them all.
        let names = perRun.max { $0.count < $1.count } ?? []
        var expectationIndex = 0
        checks = names.enumerated().map { index, named in
            var outcome = CheckOutcome(line: named.line, text: named.text, passes: 0, runs: results.count,
                                       rate: named.isExpectation && expectationIndex < rates.count ? rates[expectationIndex] : .all)
            if named.isExpectation { expectationIndex += 1 }
            for run in perRun {
                guard index < run.count else { continue }
                if let measure = run[index].measure { outcome.measures.append(measure) }
                if run[index].passed {
                    outcome.passes += 1
                } else if outcome.detail == nil {
                    outcome.detail = run[index].detail
                    outcome.reply = run[index].reply
                }
            }
            return outcome
        }
    }

    /// One run's checks in order: expectations, then the golden comparison, reply by reply.
    private static func checks(of result: ScriptResult) -> [(line: Int, text: String, passed: Bool, detail: String,
                                                             reply: String, measure: Double?, isExpectation: Bool)] {
        result.replies.flatMap { reply in
            reply.expectations.map { ($0.line, $0.text, $0.passed, $0.detail, reply.text, $0.measure, true) }
                + (reply.golden.map { [(reply.line, CheckOutcome.goldenText, $0.matches, $0.difference, reply.text, nil, false)] }
                    ?? [])
        }
    }
}

/// One check over the runs of a script.
public struct CheckOutcome: Sendable, Hashable {
    /// Its line in the script.
    public var line: Int
    /// The check as written (`expect: contains "Paris"`).
    public var text: String
    /// Runs in which it held.
    public var passes: Int
    /// Runs of the script.
    public var runs: Int
    /// The share of runs it must hold in.
    public var rate: PassRate
    /// What was found in the first run it failed in, and that run's reply.
    public var detail: String?
    public var reply: String?
    /// What it measured in each run that measured something (a similarity, a perplexity), in
    /// run order; empty for a check that does not measure.
    public var measures: [Double] = []

    /// How reports name the comparison of a reply with its golden transcript.
    public static let goldenText = "reply same as the golden transcript"

    /// A check that held in `passes` of `runs`, needing `rate` of them.
    public init(line: Int, text: String, passes: Int, runs: Int, rate: PassRate, detail: String? = nil, reply: String? = nil,
                measures: [Double] = []) {
        self.line = line
        self.text = text
        self.passes = passes
        self.runs = runs
        self.rate = rate
        self.detail = detail
        self.reply = reply
        self.measures = measures
    }

    /// Whether it held in enough runs.
    public var passed: Bool { rate.isMet(passes: passes, runs: runs) }

    /// The share of runs it held in.
    public var passRate: Double { runs == 0 ? 0 : Double(passes) / Double(runs) }

    /// Where its true pass rate lies, 95% of the time: the Wilson interval of its passes
    /// (``PassStatistics/wilsonInterval(passes:runs:z:)``).
    public var interval: (low: Double, high: Double) { PassStatistics.wilsonInterval(passes: passes, runs: runs) }

    /// pass@k for k from 1 to the runs: the chance that at least one of k runs holds it
    /// (``PassStatistics/passAtK(passes:runs:k:)``).
    public var passAtK: [Double] { runs == 0 ? [] : (1...runs).map { PassStatistics.passAtK(passes: passes, runs: runs, k: $0) } }

    /// The mean of its measures and, from two on, the mean's standard error
    /// (``PassStatistics/mean(_:)``); `nil` when it measured nothing.
    public var measure: (mean: Double, standardError: Double?)? { PassStatistics.mean(measures) }
}
