import ArgumentParser
import Foundation
import TideChat
import TideCore
import TideLog
import TideReports

/// `tide generate`: one reply to one prompt, streamed to standard output.
struct GenerateCommand: AsyncParsableCommand, TakesGenerationParameters {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate one reply to a prompt and stream it to standard output.",
        discussion: """
            When standard input is not a terminal it is read: alone, it is the prompt; after a
            prompt argument, it is appended to it as context.

            Examples:
              tide generate "What is the capital of France?"
              echo "Write a haiku about tides" | tide generate --temperature 0.8 --seed 7
              cat notes.txt | tide generate "Summarise:"
              tide generate --model gemma-3-270m --max-tokens 64 --stats "Once upon a time"
              tide generate --json "Name three rivers." | jq -r .text
              tide generate -c "And the longest of them?"   # go on with the last one
            """
    )

    @OptionGroup var options: ConversationOptions

    @Flag(help: "Print token counts, timings and the stop reason to standard error.")
    var stats = false

    @Flag(help: "Print one JSON object instead of streaming: the text, stop reason, token counts and timings (in seconds).")
    var json = false

    @Argument(help: "The prompt (- or none: standard input).")
    var prompt: String?

    func run() async throws {
        let text = try promptText()
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("the prompt is empty")
        }
        let trace = try options.pluginOptions.traceFile()
        let resumed = try options.resumeOptions.conversation(newestFrom: .generate)
        let recipe = try await options.recipe(resuming: resumed)
        let (setup, parameters) = (recipe.setup, recipe.parameters)
        let plugins = try options.pluginOptions.maker.plugins(recipe.plugins, log: { Terminal.warn($0) })
        // The servers end when Tide does (ChildProcesses).
        let servers = try await options.pluginOptions.mcpOptions.start(recipe.mcpServers)
        let loaded = try ProgressBarModels().model(for: setup)
        let session = ChatSession(
            backend: try loaded.makeBackend(setup),
            systemPrompt: options.sessionOptions.system ?? resumed.map { $0.systemPrompt ?? "" } ?? loaded.defaultSystemPrompt,
            parameters: parameters,
            hooks: plugins,
            toolProviders: servers.tools(),
            hookErrorPolicy: options.pluginOptions.policy,
            overflowPolicy: options.sessionOptions.overflow
        )
        session.hookTrace = trace?.trace()
        session.countsInstructions = stats || json
        if let resumed { session.history = resumed.history.replacingSystemPrompt(session.history.first { $0.role == .system }?.content ?? "") }
        let log = options.logOptions.database()
        session.recorder = log.map { log in
            resumed.map { ConversationLog(continuing: $0.summary.id, messages: $0.history, database: log, source: .generate,
                                          model: setup.lastingModelName) }
                ?? ConversationLog(database: log, source: .generate, model: setup.lastingModelName)
        }
        let outcome = try await ReplyPrinter(session: session, streaming: !json).reply(to: text)
        log?.flush()
        if json, let summary = outcome.summary {
            Terminal.write(JSONOutput.line(GeneratedJSON(model: setup.model, parameters: parameters, summary: summary, outcome: outcome)) + "\n")
        }
        // Without --json, the tokens' log-probabilities come after the reply, on standard error.
        if !json, parameters.logprobs != nil, let summary = outcome.summary, !summary.logprobs.isEmpty {
            Terminal.warn(summary.logprobs.table)
        }
        if stats, let summary = outcome.summary {
            Terminal.warn(StatisticsReport(statistics: summary.statistics, stopReason: summary.stopReason,
                                            peakMemoryBytes: PeakMemory.bytes, placement: session.backend.modelDescription.placement).description)
        }
        if outcome.summary?.stopReason == .cancelled { throw ExitCode(130) }
    }

    /// The prompt argument, standard input (`-`, or no argument), or both: the argument, then
    /// what standard input holds when it is not a terminal.
    private func promptText() throws -> String {
        let piped = isatty(STDIN_FILENO) == 0
        switch prompt {
        case nil, "-"?:
            guard prompt == "-" || piped else {
                throw ValidationError("give a prompt: tide generate \"…\", or pipe one in (echo … | tide generate)")
            }
            return try StandardInput.readAll()
        case let prompt?:
            guard piped else { return prompt }
            let context = try StandardInput.readAll()
            return context.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? prompt : prompt + "\n\n" + context
        }
    }
}

/// What `tide generate --json` prints (docs/commands.md): every time in seconds, as in `tide run --json`.
private struct GeneratedJSON: Encodable {
    struct Usage: Encodable {
        var prompt_tokens: Int
        var reused_prompt_tokens: Int
        var completion_tokens: Int
        /// Of those, the tokens spent reasoning; absent for none.
        var reasoning_tokens: Int?
    }
    struct Timings: Encodable {
        var time_to_first_token: Double?
        var decode: Double
        var hooks: Double
        var tokens_per_second: Double?
    }
    var model: String
    var parameters: ParametersJSON
    var text: String
    /// A thinking model's reasoning; absent for none.
    var reasoning: String?
    var stop_reason: String
    var usage: Usage
    var timings: Timings
    var rewinds: Int
    var tokens_taken_back: Int
    var plugin_errors: [String]
    /// What each plugin's hooks cost; absent when none was called.
    var plugin_costs: [PluginCostJSON]?
    var format_problem: String?
    /// The reply's tokens scored, with `--logprobs`; absent otherwise.
    var logprobs: LogprobsJSON?

    init(model: String, parameters: GenerationParameters, summary: ReplySummary, outcome: ReplyPrinter.Outcome) {
        let statistics = summary.statistics
        self.model = model
        self.parameters = ParametersJSON(parameters)
        text = summary.text
        reasoning = summary.reasoning.isEmpty ? nil : summary.reasoning
        stop_reason = summary.stopReason.description
        usage = Usage(prompt_tokens: statistics.promptTokens, reused_prompt_tokens: statistics.reusedPromptTokens,
                      completion_tokens: statistics.generatedTokens,
                      reasoning_tokens: statistics.reasoningTokens > 0 ? statistics.reasoningTokens : nil)
        timings = Timings(time_to_first_token: statistics.timeToFirstToken?.seconds, decode: statistics.decodeDuration.seconds,
                          hooks: statistics.hookDuration.seconds, tokens_per_second: statistics.tokensPerSecond)
        rewinds = statistics.rewinds
        tokens_taken_back = statistics.discardedTokens
        plugin_errors = outcome.failures
        plugin_costs = PluginCostJSON.all(of: statistics)
        format_problem = outcome.formatProblem
        logprobs = LogprobsJSON(summary.logprobs)
    }
}
