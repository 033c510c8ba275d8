import ArgumentParser
import Foundation
import TideBench
import TideCore
import TideLlama
import TideLua
import TideModels

/// `tide bench`: the performance figures of docs/benchmarks.md.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure decode speed, hook costs, parallel replay, KV-cache reuse, chat turns, peak memory and cold start against the design's budgets.",
        discussion: "Every time figure is a ratio measured in one run, so a busy machine affects both sides alike."
    )

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Alternating rounds per comparison (the median counts).")
    var rounds = 9

    @Option(name: .customLong("decode-tokens"), help: "Tokens decoded per round in the decode-speed comparison.")
    var decodeTokens = 256

    @Option(name: .customLong("large-vocabulary-model"),
            help: "A second model for the logits-hook figure, skipped when not installed.")
    var largeVocabularyModel = "gemma-3-270m"

    @Option(help: ArgumentHelp("score-drift: compare with the scores another llama.cpp build wrote to this file, or write "
                               + "this build's there when it does not exist.", valueName: "file"))
    var scores: String?

    @Option(name: .customLong("peer-python"),
            help: ArgumentHelp("contention: a Python with llama-cpp-python to run beside Tide (default: the one scripts/setup.sh "
                               + "installs, when it is there).", valueName: "path"))
    var peerPython: String?

    @Option(help: ArgumentHelp("Run only this benchmark (repeatable): \(Benchmarks.names.joined(separator: ", ")).",
                               valueName: "name"))
    var only: [String] = []

    func validate() throws {
        if let unknown = only.first(where: { !Benchmarks.names.contains($0) }) {
            throw ValidationError("no benchmark '\(unknown)'; the benchmarks are \(Benchmarks.names.joined(separator: ", "))")
        }
        if rounds < 1 { throw ValidationError("--rounds must be at least 1") }
        if decodeTokens < 2 { throw ValidationError("--decode-tokens must be at least 2") }
    }

    func run() async throws {
        var benchmarks = Benchmarks(model: try await modelOptions.loadLocal(), executable: try Self.executablePath(),
                                    threads: modelOptions.checkedThreads)
        benchmarks.machine = .current
        benchmarks.rounds = rounds
        benchmarks.decodeTokens = decodeTokens
        benchmarks.only = only.isEmpty ? nil : Set(only)
        benchmarks.scoresFile = scores
        benchmarks.peerPython = peerPython ?? Self.installedPeerPython
        let maker = PluginMaker()
        func plugin(_ spec: String) throws -> LuaPlugin { try maker.plugin(PluginSpec(parsing: spec), log: { _ in }) }
        benchmarks.plugins = try Self.benchmarkPlugins.map(plugin)
        benchmarks.logitsHook = try LuaPlugin(source: Self.topFortyPlugin, path: "top-40.lua")
        benchmarks.shippedPlugins = try Self.shippedPluginSpecs.map(plugin)
        benchmarks.tool = try plugin("calculator")
        if let large = try await loadLargeVocabularyModel() { benchmarks.logitsModels = [large] }
        var original = modelOptions
        original.model = ModelRegistry.bundledOriginalID
        benchmarks.originalModel = try? await original.loadLocal()
        benchmarks.phraseBans = (try plugin("ban-phrases slop=true"), try plugin("ban-phrases phrases=\"\(Self.thousandPhrases)\""),
                                 try plugin("ban-phrases phrases=the"))
        let report = try await benchmarks.run { Terminal.warn("… \($0)") }
        print(report)
        if !report.withinBudgets { throw ExitCode(1) }
    }

    /// 1,000 two-word phrases of made-up words, comma-separated: a list as long as a large
    /// anti-slop list, none of which a reply holds.
    static let thousandPhrases: String = {
        let syllables = ["ka", "zu", "mo", "ri", "te", "vo", "pli", "gra", "shu", "nek"]
        let word = { (n: Int) in (0..<3).map { syllables[(n / [1, 10, 100][$0]) % 10] }.joined() }
        return (0..<1000).map { word($0) + " " + word(999 - $0) }.joined(separator: ",")
    }()

    /// One pre-prompt hook (setting the same system prompt, so the text decoded is the same), one
    /// stop rule that never fires, and one per-token filter, from the shipped plugins.
    static let benchmarkPlugins = ["persona system='You are a helpful assistant.'", "word-budget words=100000",
                                   "strip-markdown"]

    /// Every shipped plugin, set up to work at every token of a reply without ending it early
    /// (patterns and limits it never reaches), for the plugins figure.
    static let shippedPluginSpecs = [
        "ban-phrases slop=true", "ban-regex patterns='zq%d+zq'", "calculator", "censor-words", "clock", "json-mode",
        "persona system='You are a helpful assistant.'", "prefer-words words=dragon,castle", "redact-emails",
        "stop-after-sentences sentences=1000", "stop-on-pattern pattern=zqzq", "stop-on-repetition repeats=50",
        "strip-markdown", "tool-allow tools=calculator", "units", "word-budget words=100000",
    ]

    /// A logits hook that only looks: the cost of computing the 40 best candidates.
    static let topFortyPlugin = "return { on_logits = function(view) view:top(40) end }"

    /// The second model of the logits-hook figure, or `nil` (with a note) when it is not installed.
    private func loadLargeVocabularyModel() async throws -> LlamaModel? {
        var options = modelOptions
        options.model = largeVocabularyModel
        do {
            return try await options.loadLocal()
        } catch let error as ModelLookupError {
            Terminal.warn("… skipping the logits-hook figure on \(largeVocabularyModel): \(error)")
            return nil
        }
    }

    /// The Python that scripts/setup.sh installs with llama-cpp-python, if it is there.
    static var installedPeerPython: String? {
        // Beside the model store, in Tide's cache folder.
        let python = ModelStore.standard.directory.deletingLastPathComponent().appendingPathComponent("llama-server/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: python) ? python : nil
    }

    /// This executable's path, to launch it for the whole-process figures.
    private static func executablePath() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
