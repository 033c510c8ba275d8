import ArgumentParser
import TideCore

extension DraftMode: ExpressibleByArgument {}

/// Generation parameters on the command line.
struct SamplingOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Sampling temperature; 0 is greedy (default: 0.6).")
    var temperature: Double?

    @Option(name: .customLong("top-p"), parsing: .unconditional, help: "Nucleus sampling threshold in (0, 1] (default: 0.95).")
    var topP: Double?

    @Option(name: .customLong("top-k"), parsing: .unconditional, help: "Sample among the k most likely tokens; 0 disables (default: 40).")
    var topK: Int?

    @Option(name: .customLong("min-p"), parsing: .unconditional, help: "Minimum probability relative to the best token (default: 0.05).")
    var minP: Double?

    @Option(name: .customLong("repeat-penalty"), parsing: .unconditional, help: "Penalty for recently seen tokens; 1 disables (default: 1).")
    var repeatPenalty: Double?

    @Option(name: .customLong("repeat-last-n"), parsing: .unconditional, help: "How many recent tokens the penalty looks at (default: 64).")
    var repeatLastN: Int?

    @Option(parsing: .unconditional, help: "Random seed, for reproducible sampling.")
    var seed: UInt32?

    @Option(name: .customLong("max-tokens"), parsing: .unconditional, help: "The most tokens in a reply (default: 1024).")
    var maxTokens: Int?

    @Option(parsing: .unconditionalSingleValue, help: "A string that ends the reply (repeatable); it is never shown.")
    var stop: [String] = []

    @Option(name: .customLong("max-rewinds"),
            parsing: .unconditional, help: "The most times plugins may take back the end of one reply; past it the reply ends (default: 32).")
    var maxRewinds: Int?

    @Option(name: .customLong("tool-choice"),
            help: "Whether the model may call the plugins' tools (auto), must call one (required, or a tool's name) or is not offered them (none) (default: auto).")
    var toolChoice: String?

    @Option(name: .customLong("tool"), help: ArgumentHelp("Offer only this tool of the loaded plugins (repeatable; default: all of them).",
                                                          valueName: "name"))
    var tools: [String] = []

    @Option(name: .customLong("max-tool-rounds"),
            parsing: .unconditional, help: "The most rounds of tool calls in one turn; past them the model must answer (default: 8).")
    var maxToolRounds: Int?

    @Option(name: .customLong("parallel-tool-calls"),
            help: "Whether one reply may call several tools at once: true or false (default: true).")
    var parallelToolCalls: Bool?

    @Option(name: .customLong("reasoning-budget"), parsing: .unconditional,
            help: "The most tokens a thinking model (<think>…</think>) may reason for; then its reasoning is closed for it and it answers (-1: no limit; default: -1).")
    var reasoningBudget: Int?

    @Option(help: "Draft tokens from the conversation and check them in one decode where a check pays on this machine (lookup), whenever the conversation holds a draft (always), or decode one at a time (off); the reply is the same. Replies on the sequences of a batch (tide serve, run --parallel) do not draft yet (default: lookup).")
    var draft: DraftMode?

    /// The parameters given, in the order of ``ParameterSetting/names`` (`--max-rewinds` and
    /// `--draft`, which change how a reply is made but not which one, are not among them).
    var settings: [ParameterSetting] {
        [temperature.map(ParameterSetting.temperature), topK.map(ParameterSetting.topK), topP.map(ParameterSetting.topP),
         minP.map(ParameterSetting.minP), repeatPenalty.map(ParameterSetting.repeatPenalty),
         repeatLastN.map(ParameterSetting.repeatLastN), seed.map { ParameterSetting.seed($0) }, maxTokens.map(ParameterSetting.maxTokens),
         stop.isEmpty ? nil : ParameterSetting.stop(stop), toolChoice.map { ParameterSetting.toolChoice(ToolChoice($0)) },
         maxToolRounds.map(ParameterSetting.maxToolRounds), parallelToolCalls.map(ParameterSetting.parallelToolCalls),
         reasoningBudget.map { ParameterSetting.reasoningBudget($0 == -1 ? nil : $0) }].compactMap { $0 }
    }

    /// `base` (a model's defaults) with the parameters given here over it, validated: a bad
    /// value is a usage error that names it.
    func parameters(over base: GenerationParameters = GenerationParameters()) throws -> GenerationParameters {
        var parameters = base
        for setting in settings { setting.apply(to: &parameters) }
        if let maxRewinds { parameters.maxRewinds = maxRewinds }
        if let draft { parameters.draft = draft }
        if !tools.isEmpty { parameters.toolNames = tools }
        do {
            try parameters.validate()
        } catch {
            throw ValidationError("--\(error.name) must be \(error.requirement), not \(error.value)")
        }
        return parameters
    }

    func validate() throws { _ = try parameters() }
}
