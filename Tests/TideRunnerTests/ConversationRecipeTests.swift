import Testing
import TideCore
import TideLua
import TideMCP
import TideModels
import TideProvider

/// A conversation's recipe is resolved in one order for every front end: the model's defaults,
/// then a resumed conversation's settings, then the command line, then a script; plugins and MCP
/// servers keep where each was given, for errors that name it. Nothing here loads a model.
@Suite struct ConversationRecipeTests {
    /// The bundled model's defaults: temperature 0.2, repeat penalty 1.1.
    static let setup = ModelSetup(model: ModelRegistry.defaultModelID)

    @Test func eachSourceOverridesThoseBeforeIt() throws {
        let plain = try RecipeSources(setup: Self.setup).resolve()
        #expect(plain.parameters.temperature == 0.2 && plain.parameters.repeatPenalty == 1.1)

        var sources = RecipeSources(setup: Self.setup, commandLine: {
            var parameters = $0
            parameters.temperature = 0.9
            return parameters
        }, plugins: ["word-budget words=5"], mcpServers: ["time: mcp-server-time"],
            scriptMCPServers: [Sourced("git: mcp-server-git", from: "s.tide:3: @mcp")])
        sources.resumed = { defaults in
            var parameters = defaults
            parameters.topK = 7
            parameters.temperature = 0.5
            return (parameters, ["persona"])
        }
        let recipe = try sources.resolve()
        // The command line over the resumed conversation over the model's.
        #expect(recipe.parameters.temperature == 0.9)
        #expect(recipe.parameters.topK == 7)
        #expect(recipe.parameters.repeatPenalty == 1.1)
        // The resumed conversation's plugins replace the model's; the command line's come after.
        #expect(recipe.plugins == [Sourced("persona", from: "the resumed conversation's plugin"),
                                   Sourced("word-budget words=5", from: "--plugin")])
        #expect(recipe.mcpServers == [Sourced("time: mcp-server-time", from: "--mcp"), Sourced("git: mcp-server-git", from: "s.tide:3: @mcp")])
    }

    /// `tide run`'s base: the command line's whole parameters, its settings applied again after
    /// the model's, so a flag wins over the model and a value no setting names stays.
    @Test func theBaseIsWhatTheModelsDefaultsApplyOver() throws {
        var base = GenerationParameters()
        base.tolerance = 3
        base.temperature = 0.7
        var sources = RecipeSources(setup: Self.setup)
        sources.base = base
        let recipe = try sources.resolve()
        #expect(recipe.parameters.tolerance == 3)
        #expect(recipe.parameters.temperature == 0.2, "the model's setting applies over the base")
    }

    @Test func aSettingThatCannotBeUsedIsNamedWithWhereItWasGiven() throws {
        #expect {
            _ = try PluginMaker().plugins([Sourced("no-such-plugin", from: "--plugin")], log: { _ in })
        } throws: { error in
            "\(error)".hasPrefix("--plugin no-such-plugin: no plugin 'no-such-plugin'")
        }
        #expect {
            _ = try MCPServerSpec.reading([Sourced("a: one", from: "--mcp"), Sourced("a: two", from: "s.tide:2: @mcp")])
        } throws: { error in
            "\(error)".hasPrefix("s.tide:2: @mcp a: two: another MCP server is named a")
        }
        // The same server given twice is started once.
        let specs = try MCPServerSpec.reading([Sourced("a: one", from: "--mcp"), Sourced("a:  one", from: "the model's MCP server")])
        #expect(specs.map(\.name) == ["a"])
    }

    /// The factory reads the plugins' files once and makes each conversation's hooks afresh.
    @Test func aFactoryMakesFreshHooksForEachConversation() throws {
        let factory = try PluginMaker().factory([Sourced("word-budget words=5", from: "--plugin")])
        let first = try factory.hooks(log: { _ in })
        let second = try factory.hooks(log: { _ in })
        #expect(first.map(\.name) == ["word-budget"] && second.map(\.name) == ["word-budget"])
        #expect(ObjectIdentifier(first[0]) != ObjectIdentifier(second[0]))
    }
}
