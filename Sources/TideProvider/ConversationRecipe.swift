import TideCore
import TideModels

/// What one conversation runs with: the model setup, the parameters of its first reply, and its
/// plugins and MCP servers in order, each with where it came from. Every front end (`tide chat`,
/// `generate`, `serve`, `run` and its judge) asks ``RecipeSources/resolve()`` for one, so the
/// order in which the sources override one another is written once.
public struct ConversationRecipe: Sendable {
    /// The model and how its context opens.
    public var setup: ModelSetup
    /// What the model brings (its registry entry's, its preset chain's).
    public var defaults: ModelDefaults
    /// The parameters of the first reply: the model's, then a resumed conversation's, then the
    /// command line's.
    public var parameters: GenerationParameters
    /// The plugins' specs, in hook order: the model's (or a resumed conversation's), then the
    /// command line's.
    public var plugins: [Sourced]
    /// The MCP servers' specs: the model's, the command line's, a script's.
    public var mcpServers: [Sourced]
}

/// The sources of a conversation's settings. Each overrides those before it:
///
/// 1. the model's defaults (``ModelSetup/modelDefaults()``);
/// 2. a resumed conversation's last settings (its parameters and plugins, in place of the
///    model's);
/// 3. the command line (parameters and a reply format over them, plugins and MCP servers after
///    the model's);
/// 4. a script: its `@model`, `@ctx-size`, `@template` and `@tool-format` change the setup before
///    anything is read, and its `@mcp` servers come last (its other directives act as it runs).
///
/// A new source of settings is one more property here and its place in ``resolve()``.
public struct RecipeSources: Sendable {
    /// The model setup the command line (and a script) describe.
    public var setup: ModelSetup
    /// The parameters the model's defaults apply over (`tide run`'s: the command line's whole,
    /// its settings applied again after the model's).
    public var base = GenerationParameters()
    /// A resumed conversation's last settings over the model's parameters; `nil` when none is
    /// resumed (or it has no generated reply).
    public var resumed: (@Sendable (GenerationParameters) -> (parameters: GenerationParameters, plugins: [String])?)?
    /// The command line's parameters over the given ones (its sampling options, its format).
    public var commandLine: @Sendable (GenerationParameters) throws -> GenerationParameters
    /// `--plugin`, in order.
    public var plugins: [String]
    /// `--mcp`, in order.
    public var mcpServers: [String]
    /// A script's `@mcp` servers, with where each is written.
    public var scriptMCPServers: [Sourced]

    /// The sources; only the setup is required.
    public init(setup: ModelSetup,
                resumed: (@Sendable (GenerationParameters) -> (parameters: GenerationParameters, plugins: [String])?)? = nil,
                commandLine: @escaping @Sendable (GenerationParameters) throws -> GenerationParameters = { $0 },
                plugins: [String] = [], mcpServers: [String] = [], scriptMCPServers: [Sourced] = []) {
        self.setup = setup
        self.resumed = resumed
        self.commandLine = commandLine
        self.plugins = plugins
        self.mcpServers = mcpServers
        self.scriptMCPServers = scriptMCPServers
    }

    /// The recipe these sources make. The model's registry entry or preset is read here; nothing
    /// is loaded or started.
    public func resolve() throws -> ConversationRecipe {
        let defaults = try setup.modelDefaults()
        var modelParameters = base
        for setting in defaults.parameters { setting.apply(to: &modelParameters) }
        let brought = resumed?(modelParameters)
        let parameters = try commandLine(brought?.parameters ?? modelParameters)
        let plugins = (brought.map { $0.plugins.map { Sourced($0, from: "the resumed conversation's plugin") } }
            ?? defaults.plugins.map { Sourced($0, from: "the model's plugin") })
            + self.plugins.map { Sourced($0, from: "--plugin") }
        let servers = defaults.mcp.map { Sourced($0, from: "the model's MCP server") } + mcpServers.map { Sourced($0, from: "--mcp") }
            + scriptMCPServers
        return ConversationRecipe(setup: setup, defaults: defaults, parameters: parameters, plugins: plugins, mcpServers: servers)
    }
}
