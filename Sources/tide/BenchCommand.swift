import ArgumentParser
import Foundation
import TideBench

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
        let report = try await benchmarks.run { Terminal.warn("… \($0)") }
        print(report)
        if !report.withinBudgets { throw ExitCode(1) }
    }

    /// This executable's path, to launch it for the whole-process figures.
    private static func executablePath() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
