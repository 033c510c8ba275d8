import ArgumentParser
import Foundation
import TideBench
import TideLua

/// `tide bench`: the performance figures of docs/benchmarks.md.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure decode speed, KV-cache reuse, peak memory and cold start against the design's budgets.",
        discussion: "Every time figure is a ratio measured in one run, so a busy machine affects both sides alike."
    )

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Alternating rounds per comparison (the median counts).")
    var rounds = 9

    @Option(name: .customLong("decode-tokens"), help: "Tokens decoded per round in the decode-speed comparison.")
    var decodeTokens = 256

    func validate() throws {
        if rounds < 1 { throw ValidationError("--rounds must be at least 1") }
        if decodeTokens < 2 { throw ValidationError("--decode-tokens must be at least 2") }
    }

    func run() async throws {
        let loaded = try modelOptions.load()
        var benchmarks = Benchmarks(model: loaded.model, executable: try Self.executablePath(),
                                    threads: modelOptions.threads)
        benchmarks.rounds = rounds
        benchmarks.decodeTokens = decodeTokens
        benchmarks.plugins = try Self.benchmarkPlugins.map { try LuaPlugin(spec: PluginSpec(parsing: $0)) }
        let report = try await benchmarks.run { Terminal.warn("… \($0)") }
        print(report)
        if !report.withinBudgets { throw ExitCode(1) }
    }

    /// One pre-prompt hook (setting the same system prompt, so the text decoded is the same), one
    /// stop rule that never fires, and one per-token filter, from the shipped plugins.
    static let benchmarkPlugins = ["persona system='You are a helpful assistant.'", "word-budget words=100000",
                                   "strip-markdown"]

    /// This executable's path, to launch it for the whole-process figures.
    private static func executablePath() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
