import ArgumentParser
import Foundation
import Synchronization
import TideCache
import TideCore
import TideJournal
import TideLog
import TideMCP
import TideReports
import TideRunner
import TideScript

/// `tide run`: replays conversation scripts and checks their replies.
struct RunCommand: AsyncParsableCommand, TakesGenerationParameters {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Replay conversation scripts and check every generated reply against its expectations.",
        discussion: """
            Each script (docs/conversations.md) runs with its own model settings, plugins and parameters; \
            options given here are defaults that a script's directives override. Exit status: 0 when every \
            expectation holds, 1 when one fails (under --fail-on-regression, when one regresses against \
            --baseline), 2 on a usage error, a script that cannot run (parse, \
            model or plugin error, context overflow), or a report that cannot be written (--junit, --out, \
            or standard output, for --tap and --json: a full disk, a folder given for a file).
            """
    )

    @Argument(help: "Script files, folders searched for .tide files, or - for a script on standard input.")
    var paths: [String] = []

    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var formatOptions: FormatOptions
    @OptionGroup var pluginOptions: PluginOptions
    @OptionGroup var logOptions: LogOptions
    @OptionGroup var embeddingOptions: EmbeddingOptions
    @OptionGroup var baselineOptions: BaselineOptions
    @OptionGroup var cacheOptions: CacheOptions
    @OptionGroup var report: ReportOptions

    @Option(help: ArgumentHelp("The model that grades expect: judge checks: a model or preset name, a .gguf path, or a server's base URL "
                               + "(default: the model under test; a script's @judge wins).", valueName: "target"))
    var judge: String?

    @Flag(help: "Ask the judge again for recorded replies that teacher forcing confirms, instead of taking the verdicts their transcript records.")
    var rejudge = false

    @Option(name: .customLong("context-overflow"), help: "When a conversation outgrows the context: fail, drop-oldest or shift (see tide chat --help).")
    var overflow: ContextOverflowPolicy = .fail

    @Option(help: ArgumentHelp("Write each script's transcript (a replayable script) into this folder.", valueName: "dir"))
    var out: String?

    @Flag(name: .customLong("replace-scripts"),
          help: "Allow --out to be the scripts' own folder, replacing each script with its transcript.")
    var replaceScripts = false

    @Flag(name: .shortAndLong, help: "Stream every transcript, with each reply's statistics.")
    var verbose = false

    @Flag(help: "Record the replies as golden transcripts (NAME.golden.tide next to each script, or in --golden).")
    var update = false

    @Flag(help: "Fail when a reply differs from its golden transcript, showing a diff.")
    var check = false

    @Option(help: ArgumentHelp("Keep golden transcripts in this folder instead of next to the scripts.", valueName: "dir"))
    var golden: String?

    @Option(parsing: .unconditional, help: "Replay up to N scripts at once, decoding them as parallel sequences of one batch.")
    var parallel = 1

    @Flag(help: "Generate recorded replies again instead of checking them by teacher forcing.")
    var regenerate = false

    @Option(parsing: .unconditional,
            help: ArgumentHelp("How far, in logits, a recorded token may fall behind the model's choice and still be confirmed "
                               + "by teacher forcing (0: exact; default \(Tolerance.standard)); @tolerance overrides it.",
                               valueName: "logits"))
    var tolerance: Double?

    @Option(name: .customLong("repeat"), parsing: .unconditional,
            help: ArgumentHelp("Replay each script N times, run r adding r-1 to every reply's seed (0 where none is set).",
                               valueName: "N"))
    var repetitions = 1

    @Option(name: .customLong("min-pass"),
            parsing: .unconditional, help: ArgumentHelp("With --repeat: the share of runs each expectation must hold in (0.8 or 80%; default 1).",
                               valueName: "rate"))
    var minimumPassRate: PassRate?

    @Option(name: .customLong("var"), help: ArgumentHelp("A value for {{NAME}} in the scripts (repeatable); a script's @var and a data row win.",
                                                         valueName: "name=value"))
    var variables: [String] = []

    @Option(help: ArgumentHelp("Replay each script once per row of this CSV or JSON Lines file, its columns as variables "
                               + "(a script's @data wins).", valueName: "file"))
    var data: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Run a case again, up to N times, when its server failed in a way that may pass (refused or reset "
                               + "connection, HTTP 429 or 5xx, a stream cut short), backing off with jitter and honouring "
                               + "Retry-After (default \(RetryPolicy.standardRetries)).", valueName: "N"))
    var retries = RetryPolicy.standardRetries

    @Flag(help: ArgumentHelp("Go on with a run that stopped: the run whose number follows it (--resume 12; tide runs list), else "
                             + "the newest unfinished run of the same arguments here; only the cases it lacks, or whose script, model, "
                             + "plugins or settings changed, are replayed, and the report covers the whole run."))
    var resume = false

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Replay every script on this target (repeatable): 'LABEL: OPTIONS', the model, plugin, "
                               + "parameter and format options it takes over the run's, e.g. 'slop: --plugin \"ban-phrases slop=true\"'.",
                               valueName: "target"))
    var target: [String] = []

    func validate() throws {
        if scriptPaths.isEmpty { throw ValidationError("give at least one script or folder, e.g. tide run Conversations/") }
        if update && check { throw ValidationError("--update records golden transcripts and --check compares with them: choose one") }
        if report.quiet && verbose { throw ValidationError("--quiet and --verbose contradict each other") }
        if golden != nil && !update && !check { throw ValidationError("--golden only makes sense with --update or --check") }
        if parallel < 1 || parallel > 64 { throw ValidationError("--parallel must be from 1 to 64, not \(parallel)") }
        if !RetryPolicy.range.contains(retries) {
            throw ValidationError("--retries must be from \(RetryPolicy.range.lowerBound) to \(RetryPolicy.range.upperBound), not \(retries)")
        }
        if repetitions < 1 || repetitions > 1000 { throw ValidationError("--repeat must be from 1 to 1000, not \(repetitions)") }
        if repetitions > 1 && (out != nil || update || check) {
            throw ValidationError("--repeat runs each script several times, and --out, --update and --check record or compare "
                                  + "one run: choose one")
        }
        if minimumPassRate != nil && repetitions == 1 { throw ValidationError("--min-pass only makes sense with --repeat N") }
        if let tolerance, !Tolerance.range.contains(tolerance) {
            throw ValidationError("--tolerance must be \(Tolerance.requirement), not \(tolerance)")
        }
        if tolerance != nil && regenerate {
            throw ValidationError("--tolerance applies to teacher forcing, which --regenerate turns off: choose one")
        }
        if paths.count(where: { $0 == "-" }) > 1 { throw ValidationError("- (standard input) can be given once") }
        if resume && paths.contains("-") {
            throw ValidationError("a script on standard input cannot be resumed: save it to a file and run that")
        }
        for variable in variables {
            let (name, _) = ParameterArguments.split(variable)
            guard variable.contains("="), ScriptVariables.isName(name) else {
                throw ValidationError("--var is NAME=VALUE, the name letters, digits and _ (not starting with a digit), not '\(variable)'")
            }
        }
        if !target.isEmpty && modelOptions.models.count > 1 {
            throw ValidationError("--model is given several times and --target too: give each target with --target "
                                  + "('\(TargetOptions.label(naming: modelOptions.models[0])): --model \(modelOptions.models[0])')")
        }
        let labels = try targetSpecs().map(\.label)
        if let twice = labels.first(where: { label in labels.count { $0 == label } > 1 }) {
            throw ValidationError(target.isEmpty
                ? "two --model targets are named \(twice) after their files: name each with --target 'LABEL: --model FILE'"
                : "two targets are named \(twice): name each once (LABEL: OPTIONS)")
        }
        if paths.contains("-") && (out != nil || update || check) {
            throw ValidationError("a script on standard input has no file to write a transcript beside or compare with: "
                                  + "save it to a file for --out, --update or --check")
        }
    }

    func run() async throws {
        let files = try Self.orExit { try ScriptFiles.scripts(in: scriptPaths) }
        if files.isEmpty {
            Terminal.warn("Error: no .tide scripts in \(scriptPaths.joined(separator: ", "))")
            throw ExitCode(2)
        }
        let baseline = try Self.orExit { try baselineOptions.load() }
        let standardInput = paths.contains("-") ? try StandardInput.readAll(what: "the script") : nil
        let (cases, planErrors) = ScriptCases.plan(files: files, standardInput: standardInput,
                                                   variables: Dictionary(variables.map(ParameterArguments.split)) { $1 }, data: data)
        if !planErrors.isEmpty {
            for error in planErrors { Terminal.warn("Error: \(error)") }
            Terminal.warn("nothing was replayed: mend the data and the scripts above first")
            throw ExitCode(2)
        }
        let log = logOptions.database()
        defer { log?.flush() }
        let targetCount = max(target.count, modelOptions.models.count, 1)
        let sequences = min(parallel, cases.count * targetCount * repetitions)
        let cache = try cacheOptions.open()
        // --trace-hooks alone with --out: a trace beside each transcript; else one trace for all.
        let sharedTrace = pluginOptions.traceHooks == "-" && out != nil ? nil : try pluginOptions.traceFile()
        let targets = try await makeTargets(cases: cases, sequences: sequences, standardInput: standardInput, log: log, cache: cache)
        try Self.orExit {
            if let out { try checkOutFolder(out, cases: cases, targets: targets) }
            if update || check { try checkGoldenFiles(cases: cases, targets: targets) }
        }

        let jobs = cases.count * targets.count * repetitions
        let labels = targets.compactMap(\.label)
        let journaling = try Self.orExit {
            try RunJournaling.start(resume: resume, run: resumedRun, folder: FileManager.default.currentDirectoryPath,
                                    arguments: journaledArguments, command: Self.reportedCommand(["run"] + journaledArguments),
                                    targets: labels, repetitions: repetitions, jobs: jobs)
        }
        let interrupt = journaling?.sayingHowToResumeOnInterrupt()
        defer { interrupt?.stop() }

        let streaming = !report.json && !report.tap && !report.quiet && sequences == 1 && repetitions == 1
            && (verbose || Terminal.stdoutIsTTY)
        var reporter = RunReporter(output: report.output(showPasses: !streaming), repetitions: repetitions, minimumPassRate: minimumPassRate,
                                   keepsResults: report.html != nil)
        reporter.baseline = baseline
        // A group is one case on one target; its runs are the repetitions.
        let bar = jobs > 1 && !streaming ? ProgressBar(label: "replaying") : nil
        // A traced run runs its cases' plugins: none is given back whole (replies may still be).
        let keptCases = pluginOptions.traceHooks != nil ? nil : cache.map { KeptCases(store: $0, sequences: sequences) }
        let job = ReplayJob(out: out, golden: golden, update: update, check: check,
                            trace: sharedTrace, traceBeside: pluginOptions.traceHooks == "-" && out != nil,
                            fileDigest: journaling.map { FileDigest(store: $0.journal) } ?? FileDigest(),
                            cases: keptCases,
                            view: streaming ? TranscriptView(verbose: verbose, style: .standardOutput) : nil)
        let start = ContinuousClock.now
        for line in reporter.header { Terminal.write(line + "\n") }
        bar?.update(0, detail: "0/\(jobs)")
        await ReplayQueue.run(groups: cases.count * targets.count, repetitions: repetitions, concurrency: sequences) { [repetitions] index, run in
            let (scriptCase, target) = (cases[index / targets.count], targets[index % targets.count])
            let key = JobKey(file: scriptCase.file, row: scriptCase.row?.name, target: target.label, repetition: run)
            if let skipped = journaling?.skipped(key) { return skipped }
            let result = await job.replay(scriptCase, on: target, seedOffset: repetitions > 1 ? UInt32(run) : nil,
                                          reuse: journaling?.reuse(key))
            journaling?.record(result, as: key, position: index * repetitions + run)
            return result
        } progress: { done in
            bar?.update(Double(done) / Double(jobs), detail: "\(done)/\(jobs)")
        } finished: { runs in
            bar?.finish()
            for line in reporter.lines(for: runs) { Terminal.write(line + "\n") }
        }
        bar?.finish()
        let seconds = (ContinuousClock.now - start).seconds
        for line in reporter.footer(targets: labels, seconds: seconds) { Terminal.write(line + "\n") }
        let counts = reporter.counts(scripts: files.count, rows: cases.count(where: { $0.row != nil }), targets: targets.count, seconds: seconds)
        var summary = reporter.summary(counts: counts, targets: labels)
        if let given = keptCases?.note(jobs: jobs) { summary += "\n" + given }
        if let resumption = journaling?.resumption(jobs: jobs) { summary += "\n" + resumption }
        let reported = report.close(reporter, summary: summary, counts: counts, targets: labels,
                                    command: Self.reportedCommand(CommandLine.arguments.dropFirst()), seconds: seconds)
        let journaled = journaling?.finish(passed: reporter.passed, failed: reporter.failed, errors: reporter.errors) ?? true
        if reporter.errors > 0 || !reported || !journaled { throw ExitCode(2) }
        if baselineOptions.failOnRegression {
            if reporter.baselineComparison?.isRegression == true { throw ExitCode(1) }
        } else if reporter.failed > 0 {
            throw ExitCode(1)
        }
    }

    /// What `body` gives; an error it throws is said, and ends the run before anything is
    /// replayed (status 2).
    static func orExit<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            Terminal.warn("Error: \(error)")
            throw ExitCode(2)
        }
    }

    /// The scripts and folders to run: the arguments but, under `--resume`, the one after it
    /// that names a run (``resumedRun``).
    var scriptPaths: [String] {
        guard let run = resumedRun, let index = paths.firstIndex(of: String(run)) else { return paths }
        var paths = paths
        paths.remove(at: index)
        return paths
    }

    /// The run `--resume RUN` names: the argument after `--resume`, when it is a number and no
    /// file or folder.
    var resumedRun: Int64? {
        let arguments = CommandLine.arguments
        guard resume, let index = arguments.firstIndex(of: "--resume"), index + 1 < arguments.count,
              let number = Int64(arguments[index + 1]), number > 0, paths.contains(arguments[index + 1]),
              !FileManager.default.fileExists(atPath: arguments[index + 1]) else { return nil }
        return number
    }

    /// The arguments after `tide run` that identify the run in the journal: as given, without
    /// `--resume` and the run it names.
    var journaledArguments: [String] {
        var arguments = Array(CommandLine.arguments.drop { $0 != "run" }.dropFirst())
        if let index = arguments.firstIndex(of: "--resume") {
            arguments.remove(at: index)
            if let run = resumedRun, index < arguments.count, arguments[index] == String(run) { arguments.remove(at: index) }
        }
        return arguments
    }

    /// The command line of the run as a report shows it: `tide` and its `arguments` quoted as a
    /// shell reads them, the values of `--var` left out (`--var key=…`: they may be secrets).
    static func reportedCommand(_ arguments: some Collection<String>) -> String {
        var words = ["tide"]
        var afterVar = false
        for argument in arguments {
            if afterVar, let equals = argument.firstIndex(of: "=") {
                words.append(argument[...equals] + "…")
            } else if argument.hasPrefix("--var="), let equals = argument.dropFirst(6).firstIndex(of: "=") {
                words.append(argument[...equals] + "…")
            } else {
                words.append(argument)
            }
            afterVar = argument == "--var"
        }
        return words.map(shellQuoted).joined(separator: " ")
    }

    /// `word` as a shell reads it back: as it is when it is plain, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_./=:,+@%".unicodeScalars.contains($0)
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Refuses an `--out` folder where two cases' transcripts would land on one file, or one
    /// would replace a script (without `--replace-scripts`); creates it.
    func checkOutFolder(_ out: String, cases: [ScriptCase], targets: [RunTarget]) throws {
        try Self.checkDistinct(cases: cases, targets: targets, what: "--out folders") {
            ScriptFiles.transcriptPath(for: $0.file, in: out, row: $0.row?.name, target: $1)
        }
        try ScriptFiles.prepareFolder(out)
        for label in targets.compactMap(\.label) { try ScriptFiles.prepareFolder(URL(fileURLWithPath: out).appendingPathComponent(label).path) }
        let folders = Set(targets.map { target in target.label.map { URL(fileURLWithPath: out).appendingPathComponent($0).path } ?? out })
        let scripts = Array(Set(cases.map(\.file))).sorted()
        let replaced = folders.sorted().flatMap { ScriptFiles.scriptsReplaced(in: scripts, byTranscriptsIn: $0) }
        if let first = replaced.first, !replaceScripts {
            throw ValidationError("--out \(out) would replace \(first)"
                + (replaced.count > 1 ? " and \(replaced.count - 1) more script\(replaced.count > 2 ? "s" : "")" : "")
                + " with its transcript; choose another folder, or add --replace-scripts to do that")
        }
    }

    /// Refuses golden files of two cases (under `--update` or `--check`) that would be one file.
    func checkGoldenFiles(cases: [ScriptCase], targets: [RunTarget]) throws {
        try Self.checkDistinct(cases: cases, targets: targets, what: "--golden folders") {
            ScriptFiles.goldenPath(for: $0.file, in: golden, row: $0.row?.name, target: $1)
        }
    }

    /// Refuses files, `path(case, target label)` of each case on each target, of which two are
    /// one: two scripts, or two rows of one script's data; `what` says what keeps them apart.
    static func checkDistinct(cases: [ScriptCase], targets: [RunTarget], what: String,
                              path: (ScriptCase, String?) -> String) throws {
        var owners: [String: (file: String, row: String?)] = [:]
        for scriptCase in cases {
            for target in targets {
                let file = path(scriptCase, target.label)
                guard let other = owners.updateValue((scriptCase.file, scriptCase.row?.name), forKey: file) else { continue }
                throw ValidationError(other.file != scriptCase.file
                    ? "\(other.file) and \(scriptCase.file) would both be written to \(file); replay them with separate \(what)"
                    : other.row == nil
                    ? "\(scriptCase.file) is given twice: give each script once"
                    : "two rows of \(scriptCase.file)'s data would both be written to \(file): give the rows ids that differ in letters and digits")
            }
        }
    }
}

extension RunCommand {
    /// The labels and options of the run's targets: each `--target`, else each of several
    /// `--model`s; none for a run of one target.
    func targetSpecs() throws -> [(label: String, options: TargetOptions)] {
        if !target.isEmpty { return try target.map(TargetOptions.parse(target:)) }
        guard modelOptions.models.count > 1 else { return [] }
        return try modelOptions.models.map { (TargetOptions.label(naming: $0), try TargetOptions.parse(["--model", $0])) }
    }

    /// The targets of the run: each `--target`, else each of several `--model`s, else the run's
    /// own options alone (a target without a label). Runners share one backend provider: one
    /// context per script, or with `sequences` > 1 one batch engine per model whose sequences
    /// hold the largest `@ctx-size` the scripts ask for, so a model that several targets run is
    /// loaded once. Each script's replay is logged in `log`, if given.
    func makeTargets(cases: [ScriptCase], sequences: Int, standardInput: String?, log: LogDatabase?,
                     cache: CacheStore?) async throws -> [RunTarget] {
        let specs = try targetSpecs()
        var base = modelOptions
        if modelOptions.models.count > 1 { base.models = [] }
        let contextSizes = specs.compactMap { $0.options.modelOptions.contextSize } + [base.contextSize].compactMap { $0 }
        let backends: any BackendProvider = sequences > 1
            ? BatchedBackends(models: ProgressBarModels(), sequences: sequences,
                              contextSize: (contextSizes + [ScriptFiles.largestContextSize(in: cases)].compactMap { $0 }).max(),
                              notice: { Terminal.warn($0) })
            : SequentialBackends(models: ProgressBarModels())
        var runner = ScriptRunner(backends: backends)
        runner.standardInput = standardInput
        runner.parameters = try formatOptions.over(sampling.parameters())
        if let tolerance { runner.parameters.tolerance = tolerance }
        runner.parameterSettings = try sampling.settings
        runner.plugins = pluginOptions.plugins
        // Started here, so that one that cannot start stops the run before anything is replayed;
        // they end when Tide does (ChildProcesses).
        runner.mcp = pluginOptions.mcpOptions.mcp
        runner.mcpServers = MCPServerPool(timeouts: pluginOptions.mcpOptions.timeouts)
        MCPServers.endOnTerminationSignals(includingInterrupt: true)
        for spec in try pluginOptions.mcpOptions.servers {
            let connection = try await runner.mcpServers.connection(for: spec)
            MCPOptions.noteLeftOut(connection)
        }
        runner.limits = pluginOptions.limits
        runner.hookErrorPolicy = pluginOptions.policy
        runner.countsInstructions = report.json
        runner.overflow = overflow
        runner.retryPolicy = RetryPolicy(retries: retries)
        runner.regenerate = regenerate
        runner.embedder = embeddingOptions.embedder
        runner.judge = judge
        runner.rejudge = rejudge
        runner.judgeBackends = SequentialBackends(models: ProgressBarModels())
        if let store = cache {
            runner.replyCache = CacheOptions.scope(store, sequences: sequences)
            runner.promptStates = CacheOptions.promptStates(store)
        }
        if let log {
            runner.recorder = { file, model in
                ConversationLog(database: log, source: .run, model: model,
                                origin: file == ScriptFiles.standardInput ? file : URL(fileURLWithPath: file).standardizedFileURL.path)
            }
        }
        guard !specs.isEmpty else {
            runner.setup = try await base.setup()
            return [RunTarget(label: nil, runner: runner)]
        }
        var targets: [RunTarget] = []
        for (label, options) in specs {
            targets.append(RunTarget(label: label, runner: try await options.runner(over: runner, model: base)))
        }
        return targets
    }
}

/// Replaying one case as `tide run` does: golden transcript in (under --check), transcripts
/// out (--out, --update).
struct ReplayJob: Sendable {
    let out: String?
    let golden: String?
    let update: Bool
    let check: Bool
    /// The trace every case's hook calls go to, each record with the case's label; `nil` for none.
    let trace: HookTraceFile?
    /// Whether each case's hook calls are traced beside its transcript (`--out` and `--trace-hooks` alone).
    let traceBeside: Bool
    /// Where the identities of cases get their files' digests: the run journal's keeps them between runs.
    let fileDigest: FileDigest
    /// The cases kept whole in the cache, given back before the journal's are looked up no further.
    let cases: KeptCases?
    let view: TranscriptView?

    /// Replays `scriptCase` on `target`; `seedOffset` is added to every reply's seed (one run of
    /// several); `reuse` may give back a run kept from before (``ScriptRunner/reuse``).
    func replay(_ scriptCase: ScriptCase, on target: RunTarget, seedOffset: UInt32? = nil,
                reuse: (@Sendable (CaseIdentity) async -> ScriptResult?)? = nil) async -> ScriptResult {
        var runner = target.runner
        runner.seedOffset = seedOffset
        runner.fileDigest = fileDigest
        let (file, row) = (scriptCase.file, scriptCase.row?.name)
        // Where a case given back without replaying it came from.
        let givenBack = Mutex<String?>(nil)
        if reuse != nil || cases != nil {
            runner.reuse = { [label = target.label] identity in
                if let kept = await reuse?(identity) {
                    givenBack.withLock { $0 = "the run resumed" }
                    return kept
                }
                guard let kept = await cases?.result(for: identity, file: file, row: row, target: label) else { return nil }
                givenBack.withLock { $0 = "the cache" }
                return kept
            }
        }
        let started = ContinuousClock.now
        view?.header(ScriptResult.label(file: file, row: row, target: target.label))
        let goldenPath = ScriptFiles.goldenPath(for: file, in: golden, row: row, target: target.label)
        var recorded: ConversationScript?
        func finished(_ result: ScriptResult) -> ScriptResult {
            var result = result
            result.row = row
            result.target = target.label
            // A run given back from the journal keeps the time it took then.
            if result.seconds == 0 { result.seconds = (ContinuousClock.now - started).seconds }
            return result
        }
        if check {
            guard FileManager.default.fileExists(atPath: goldenPath) else {
                return finished(ScriptResult(file: file,
                                             failure: "\(file): no golden transcript at \(goldenPath); record one with --update"))
            }
            do {
                recorded = try ConversationScript(contentsOf: URL(fileURLWithPath: goldenPath))
            } catch {
                return finished(ScriptResult(file: file, failure: "golden transcript: \(error)"))
            }
        }
        let outPath = out.map { ScriptFiles.transcriptPath(for: file, in: $0, row: row, target: target.label) }
        let caseTrace: (trace: any HookTrace, location: String, beside: HookTraceFile?)?
        do {
            caseTrace = try self.caseTrace(label: ScriptResult.label(file: file, row: row, target: target.label), transcript: outPath)
        } catch {
            return finished(ScriptResult(file: file, failure: "\(error)"))
        }
        var result = await runner.run(scriptCase, golden: recorded, trace: caseTrace?.trace) { event in
            view?.show(event)
            // Flushed turn by turn: an interrupted run keeps what it had.
            if case .transcript(let transcript) = event, let outPath {
                try? ScriptFiles.write(transcript.recordingVariables(), to: outPath, origin: file)
            }
        }
        // A case whose plugins made no call (none loaded, given back whole, not run) leaves no trace.
        if let beside = caseTrace?.beside, beside.recordCount == 0 { try? FileManager.default.removeItem(atPath: beside.path) }
        if givenBack.withLock({ $0 }) == nil, caseTrace.map({ $0.beside.map { $0.recordCount > 0 } ?? true }) == true {
            result.trace = caseTrace?.location
        }
        if let source = givenBack.withLock({ $0 }) {
            view?.show(given: result, from: source)
        } else {
            await cases?.keep(result, file: file, row: row, target: target.label)
        }
        do {
            if let outPath, let transcript = result.transcript { try ScriptFiles.write(transcript, to: outPath, origin: file) }
            if update, result.failure == nil, let transcript = result.transcript {
                try ScriptFiles.write(transcript, to: goldenPath, origin: file)
            }
        } catch {
            result.failure = result.failure ?? "\(error)"
        }
        return finished(result)
    }
}

extension ReplayJob {
    /// Where the case labelled `label`, whose transcript goes to `transcript` (if anywhere), has
    /// its hook calls traced: beside the transcript, or in the run's one trace; `nil` for none.
    /// A trace of its own comes with its file, to be removed if no call was recorded.
    func caseTrace(label: String, transcript: String?) throws -> (trace: any HookTrace, location: String, beside: HookTraceFile?)? {
        if traceBeside, let transcript {
            let path = ScriptFiles.tracePath(beside: transcript)
            let file = try HookTraceFile(path: path, warn: { Terminal.warn("warning: " + $0) })
            return (file.trace(), path, file)
        }
        return trace.map { ($0.trace(source: label), $0.path, nil) }
    }
}

extension PassRate: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}
