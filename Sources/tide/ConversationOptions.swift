import ArgumentParser
import TideCore
import TideLog
import TideProvider

/// The options of a conversation with a model, shared by `tide chat` and `tide generate`: the
/// model, the parameters and the format, the plugins and MCP servers, the system prompt and
/// the context's overflow, the log, and a conversation to resume.
struct ConversationOptions: ParsableArguments {
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var formatOptions: FormatOptions
    @OptionGroup var pluginOptions: PluginOptions
    @OptionGroup var sessionOptions: SessionOptions
    @OptionGroup var logOptions: LogOptions
    @OptionGroup var resumeOptions: ResumeOptions

    /// The recipe these options make, with `resumed` (a logged conversation) as a source: its
    /// model, unless `--model` names one, and its last settings.
    func recipe(resuming resumed: LoggedConversation?) async throws -> ConversationRecipe {
        let setup = try await modelOptions.setup(defaultModel: resumed?.summary.model)
        let (sampling, format) = (sampling, formatOptions)
        var sources = RecipeSources(setup: setup, commandLine: { try format.over(sampling.parameters(over: $0)) },
                                    plugins: pluginOptions.plugins, mcpServers: pluginOptions.mcpOptions.mcp)
        if let resumed {
            sources.resumed = { @Sendable defaults in resumed.lastSettings(over: defaults) }
        }
        return try sources.resolve()
    }
}
