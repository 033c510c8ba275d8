import ArgumentParser
import Foundation
import TideChat
import TideCore

/// `tide generate`: one reply to one prompt, streamed to standard output.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate one reply to a prompt and stream it to standard output.",
        discussion: """
            Examples:
              tide generate "What is the capital of France?"
              echo "Write a haiku about tides" | tide generate --temperature 0.8 --seed 7 -
              tide generate --model gemma-3-270m --max-tokens 64 --stats "Once upon a time"
            """
    )

    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var formatOptions: FormatOptions
    @OptionGroup var pluginOptions: PluginOptions
    @OptionGroup var sessionOptions: SessionOptions

    @Flag(help: "Print token counts, timings and the stop reason to standard error.")
    var stats = false

    @Argument(help: "The prompt, or - to read it from standard input.")
    var prompt: String

    func run() async throws {
        let parameters = try formatOptions.over(sampling.parameters())
        let text = prompt == "-" ? try StandardInput.readAll() : prompt
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("the prompt is empty")
        }
        let plugins = try pluginOptions.load()
        let (setup, loaded) = try await modelOptions.load()
        let session = ChatSession(
            backend: try loaded.makeBackend(setup),
            systemPrompt: sessionOptions.system ?? loaded.defaultSystemPrompt,
            parameters: parameters,
            hooks: plugins,
            hookErrorPolicy: pluginOptions.policy,
            overflowPolicy: sessionOptions.overflow
        )
        let summary = try await ReplyPrinter(session: session).reply(to: text)
        if stats, let summary {
            Terminal.warn(StatisticsReport(statistics: summary.statistics, stopReason: summary.stopReason,
                                            peakMemoryBytes: PeakMemory.bytes).description)
        }
        if summary?.stopReason == .cancelled { throw ExitCode(130) }
    }
}
