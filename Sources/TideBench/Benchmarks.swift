import Foundation
import TideCore
import TideLlama

/// The figures `tide bench` measures, each as a ratio taken in one run on one model so that the
/// drift of a shared machine cancels out.
///
/// ```swift
/// let report = try await Benchmarks(model: model, executable: "/usr/local/bin/tide").run { print($0) }
/// ```
public struct Benchmarks: Sendable {
    /// The model every figure is measured on.
    public let model: LlamaModel
    /// The `tide` executable, for the whole-process figures (peak memory, cold start).
    public let executable: String
    /// How many alternating rounds each comparison takes (the median counts).
    public var rounds = 9
    /// Tokens decoded per round in the decode-speed comparison.
    public var decodeTokens = 256
    /// Threads for llama.cpp.
    public var threads: Int?
    /// The machine the score-drift figure reads scores on: this one, unless another is simulated
    /// (`TIDE_MACHINE`, which the `tide` target reads); every other figure measures this machine.
    public var machine = SimulatedMachine()
    /// Plugins for the decode comparison with hooks (a pre-prompt hook, a stop rule, a filter).
    public var plugins: [any ChatHook] = []
    /// A hook whose `on_logits` calls `view:top(40)`, for the logits-hook figure (none: skipped).
    public var logitsHook: (any ChatHook)?
    /// The shipped plugins, each set up to work at every token without ending a reply early, for
    /// the plugins figure (none: skipped).
    public var shippedPlugins: [any ChatHook] = []
    /// Models besides ``model`` to measure the logits hook on (Gemma 3's 262k vocabulary).
    public var logitsModels: [LlamaModel] = []
    /// The file the default model is made from (SmolLM2's published Q4_1), for the weights-format
    /// figures; `nil`: they measure ``model`` and the other models only.
    public var originalModel: LlamaModel?
    /// `ban-phrases` with its built-in list, with 1,000 phrases, and with a phrase that occurs
    /// (`phrases=the`), for the rewind figures (none: skipped).
    public var phraseBans: (slopList: any ChatHook, thousandPhrases: any ChatHook, firing: any ChatHook)?

    /// A plugin with a tool taking `{"expression": …}` (the calculator), for the tools figure (none: skipped).
    public var tool: (any ChatHook & ToolProvider)?

    /// For the score-drift figure: a file of another llama.cpp build's scores to compare with,
    /// written with this build's when it does not exist (`nil`: batches against single tokens only).
    public var scoresFile: String?
    /// A Python with llama-cpp-python, to run the peer beside Tide in the contention figure
    /// (`nil`: Tide alone).
    public var peerPython: String?

    /// The benchmarks to run, by ``names``; `nil` for all.
    public var only: Set<String>?

    /// The benchmarks' names, in the order they run.
    public static let names = ["decode", "draft", "serve-draft", "serve-models", "quantization", "logits-hook", "plugins", "rewind", "format", "format-budget", "tools", "parallel-replay", "teacher-forcing", "score-drift",
                               "cache-reuse", "kv-cache",
                               "chat-turns", "context-shift", "log", "contention", "process"]

    private func wants(_ name: String) -> Bool { only?.contains(name) ?? true }

    /// Benchmarks on `model`, spawning `executable` for the process figures.
    public init(model: LlamaModel, executable: String, threads: Int? = nil) {
        self.model = model
        self.executable = executable
        self.threads = threads
    }

    /// Runs every benchmark, reporting progress lines through `log`.
    public func run(log: @Sendable (String) -> Void) async throws -> BenchmarkReport {
        var report = BenchmarkReport(model: model.facts.name, rounds: rounds)
        if wants("decode") {
            log("decode speed: bare llama.cpp loop vs the engine, \(decodeTokens) tokens × \(rounds) rounds")
            report.decode = try await DecodeSpeedBenchmark(model: model, tokens: decodeTokens, rounds: rounds,
                                                           threads: threads, plugins: plugins).run()
        }
        if wants("draft") {
            let draftRounds = min(rounds, 5)
            log("replies drafting by prompt lookup vs one token at a time: four copying prompts and free writing, "
                + "\(decodeTokens) tokens × \(draftRounds) rounds")
            report.draft = try await DraftBenchmark(model: model, tokens: decodeTokens, rounds: draftRounds, threads: threads).run()
        }
        if wants("serve-draft") {
            let draftRounds = min(rounds, 5)
            log("drafting through `tide serve --parallel 4`, --draft off vs lookup: 1 and 4 clients repeating a text held by a grammar, "
                + "and the command line on the same reply, \(decodeTokens) tokens × \(draftRounds) rounds")
            report.serveDraft = try await ServeDraftBenchmark(executable: executable, model: model, tokens: decodeTokens,
                                                              rounds: draftRounds, threads: threads).run()
        }
        if let originalModel, wants("serve-models") {
            log("a server of two models holding one at a time, each asked in turn with a stream cut after 3 tokens: "
                + "its memory after 100 load/unload cycles, and what a switch costs")
            report.serveModels = try await ServeModelsBenchmark(executable: executable, first: model, second: originalModel, cycles: 100,
                                                                threads: threads).run()
        }
        if wants("quantization") {
            log("prompt evaluation, decoding and 8-sequence batches on the default model, the file it is made from and that "
                + "file requantized otherwise, "
                + "\(logitsModels.map(\.facts.name).joined(separator: ", ")) and other context settings, \(rounds) rounds")
            report.quantization = try await QuantizationBenchmark(model: model, original: originalModel, others: logitsModels,
                                                                  rounds: rounds, tokens: decodeTokens, threads: threads).run()
        }
        if let logitsHook, wants("logits-hook") {
            log("one on_logits call with view:top(40), \(decodeTokens / 4) tokens × \(rounds) rounds per model")
            report.logitsHook = try await LogitsHookBenchmark(models: [model] + logitsModels, hook: logitsHook,
                                                              tokens: decodeTokens / 4, rounds: rounds, threads: threads).run()
        }
        if !shippedPlugins.isEmpty, wants("plugins") {
            log("each shipped plugin alone on the same greedy reply: its hooks' calls, instructions and time per token, "
                + "\(decodeTokens / 4) tokens × \(rounds) rounds per plugin")
            report.plugins = try await PluginCostBenchmark(model: model, plugins: shippedPlugins, tokens: decodeTokens / 4,
                                                           rounds: rounds, threads: threads).run()
        }
        if let bans = phraseBans, wants("rewind") {
            log("ban-phrases: built-in list and 1,000 phrases on a reply without them, and a ban that fires, "
                + "\(decodeTokens / 2) tokens × \(rounds) rounds")
            report.rewind = try await RewindBenchmark(model: model, tokens: decodeTokens / 2, rounds: rounds, threads: threads,
                                                      slopList: bans.slopList, thousandPhrases: bans.thousandPhrases,
                                                      firingBan: bans.firing).run()
        }
        let formatRounds = min(rounds, 5)
        if wants("format") {
            log("a reply under a JSON schema vs free text of its length, checking the sampled token first and constraining "
                + "every token, up to \(decodeTokens * 4) tokens × \(formatRounds) rounds")
            report.format = try await FormatBenchmark(model: model, tokens: decodeTokens * 4, rounds: formatRounds, threads: threads).run()
        }
        if wants("format-budget") {
            log("replies under the repository's schema fixtures with max-tokens cut to 60% of their length, "
                + "without and with budget steering")
            report.formatBudget = try await FormatBudgetBenchmark(model: model, threads: threads).run()
            if report.formatBudget == nil { log("skipping the format-budget figure: run from the repository, where \(FormatBudgetBenchmark.fixtures) is") }
        }
        if let tool, wants("tools") {
            log("a reply with tools offered but not called vs without them, \(decodeTokens) tokens × \(rounds) rounds; "
                + "then a required call: reading it, running it, resuming, \(rounds) rounds")
            report.tools = try await ToolsBenchmark(model: model, tool: tool, tokens: decodeTokens, rounds: rounds, threads: threads).run()
        }
        let replayRounds = min(rounds, 3)
        if wants("parallel-replay") {
            log("eight 3-turn scripts, one after another vs --parallel 8, \(replayRounds) alternating rounds")
            report.parallelReplay = try await ParallelReplayBenchmark(model: model, rounds: replayRounds, threads: threads).run()
        }
        if wants("teacher-forcing") {
            log("recorded transcripts checked by teacher forcing vs --regenerate, \(replayRounds) alternating rounds")
            report.teacherForcing = try await TeacherForcingBenchmark(model: model, rounds: replayRounds, threads: threads).run()
        }
        if wants("score-drift") {
            log("score drift: 8 texts × \(ScoreDriftBenchmark.replyLength) tokens, batches of \(LlamaBackend.forcedChunkSize) "
                + "against one token at a time" + (scoresFile.map { ", and this build against the scores in \($0)" } ?? ""))
            report.scoreDrift = try ScoreDriftBenchmark(model: model, threads: threads, machine: machine, scoresFile: scoresFile).run()
        }
        if wants("cache-reuse") {
            log("follow-up time to first token on a ~1000-token history, \(rounds) rounds")
            report.cacheReuse = try await CacheReuseBenchmark(model: model, rounds: rounds, threads: threads).run()
        }
        if wants("kv-cache") {
            log("the KV cache as f16, q8_0 and q4_0: memory per sequence, sequences in 1 GiB, and \(KVCacheBenchmark.sequences) sequences "
                + "decoding \(decodeTokens / 4) tokens at once after a ~1000-token history, \(min(rounds, 5)) rounds")
            report.kvCache = try await KVCacheBenchmark(model: model, rounds: min(rounds, 5), tokens: decodeTokens / 4, threads: threads).run()
        }
        if wants("chat-turns") {
            log("time to first token of chat turns 1, 2 and 10, \(rounds) rounds")
            report.chatTurns = try await ChatTurnsBenchmark(model: model, rounds: rounds, threads: threads).run()
        }
        if wants("context-shift") {
            log("a \(ContextShiftBenchmark.turns)-turn conversation on a \(ContextShiftBenchmark.contextSize)-token context, "
                + "--context-overflow shift vs drop-oldest, \(min(rounds, 3)) rounds")
            report.contextShift = try await ContextShiftBenchmark(model: model, rounds: min(rounds, 3), threads: threads).run()
        }
        if wants("log") {
            log("replies logged vs not (and a second unlogged side as a control), \(decodeTokens) tokens × \(rounds * 2) rounds; "
                + "then tide logs search over 100,000 logged replies")
            report.log = try await LogBenchmark(model: model, tokens: decodeTokens, rounds: rounds, threads: threads,
                                                filledReplies: 100_000, executable: executable).run()
        }
        if wants("contention") {
            log("sharing the cores: `tide generate` (128 tokens) alone, two and four at once, beside busy loops; "
                + "llama-cpp-python alone and two at once")
            report.contention = try ContentionBenchmark(executable: executable, model: model, tokens: 128, rounds: 3,
                                                        peerPython: peerPython).run()
        }
        if wants("process") {
            log("peak memory and cold start of `tide generate`")
            report.process = try ProcessBenchmark(executable: executable, model: model, rounds: 3).run()
        }
        return report
    }
}

/// The median of some numbers.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
