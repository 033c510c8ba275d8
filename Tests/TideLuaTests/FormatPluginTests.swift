import Foundation
import Testing
import TideCore
import TideFormat
import TideLua

/// Reply formats together with plugins, on the real model: `on_prompt` sets a turn's format, logits
/// biases and rewinds act before the grammar, and a ban the grammar cannot get around ends the
/// reply with a stop reason of its own.
@Suite(.serialized) struct FormatPluginTests {
    func plugin(_ spec: String) throws -> LuaPlugin {
        try LuaPlugin(spec: PluginSpec(parsing: spec), locator: PluginLocator(directories: [ShippedPluginTests.folder]))
    }

    func reply(_ plugins: [any ChatHook], format: ReplyFormat? = nil, to question: String, maxTokens: Int = 120)
        async throws -> CollectedReply
    {
        let session = try PluginFixtures.session(plugins, maxTokens: maxTokens)
        session.parameters.format = format
        return try await session.reply(to: question).collect()
    }

    @Test func jsonModeAsksForJSONOnlyWhenTheMessageSaysSo() async throws {
        let json = try await reply([plugin("json-mode")], to: "json: the name and the country of the capital of France", maxTokens: 200)
        #expect(json.failures.isEmpty)
        #expect(json.summary?.stopReason == .endOfGeneration, "\(json.text)")
        guard case .object = try JSONValue(parsing: json.text) else {
            Issue.record("not an object: \(json.text)")
            return
        }
        #expect(json.summary?.format == .json)
        let plain = try await reply([plugin("json-mode")], to: "What is the capital of France?")
        #expect(plain.summary?.format == nil)
        #expect(!plain.text.isEmpty && !plain.text.hasPrefix("{"), "\(plain.text)")

        let keyed = try await reply([plugin("json-mode keys=country,capital")], to: "json: the capital of France", maxTokens: 200)
        guard case .object(let object) = try JSONValue(parsing: keyed.text) else {
            Issue.record("not an object: \(keyed.text)")
            return
        }
        #expect(object.members.map(\.key) == ["country", "capital"], "in the order the plugin listed: \(keyed.text)")
    }

    @Test func aSchemaGivenAsALuaTableConstrainsTheTurn() async throws {
        let source = """
            return { name = "tabled", on_prompt = function(prompt)
              prompt.params.format = { json_schema = { type = "object", required = { "answer", "sure" },
                properties = { answer = { type = "string", maxLength = 40 }, sure = { type = "boolean" } },
                additionalProperties = false } }
            end }
            """
        let result = try await reply([try PluginFixtures.plugin("tabled", source)], to: "What is the capital of France?")
        #expect(result.failures.isEmpty)
        let value = try JSONValue(parsing: result.text)
        guard case .object(let object) = value else {
            Issue.record("not an object: \(result.text)")
            return
        }
        #expect(object.members.map(\.key) == ["answer", "sure"], "sorted key order: \(result.text)")
        #expect(result.summary?.format?.kind == .jsonSchema)
    }

    @Test func anUnusableFormatIsThePluginsError() async throws {
        let cases = [
            (#"prompt.params.format = "yaml""#, "it must be nil, \"json\""),
            (#"prompt.params.format = { grammar = "root ::= \"a" }"#, "line 1"),
            (#"prompt.params.format = { json_schema = '{"type": "object", "not": {}}' }"#, "'not'"),
            (#"prompt.params.format = { json_schema = "{nope" }"#, "not JSON"),
        ]
        for (code, message) in cases {
            let source = "return { name = \"bad\", on_prompt = function(prompt) \(code) end }"
            let result = try await reply([try PluginFixtures.plugin("bad", source)], to: "Hi", maxTokens: 8)
            let failure = try #require(result.failures.first, "\(code)")
            #expect(failure.message.contains("prompt.params.format") && failure.message.contains(message), "\(failure.message)")
        }
    }

    /// The grammar allows two answers; a logits plugin's bias chooses between them, so biases
    /// apply before the grammar's constraint.
    @Test func logitsBiasesApplyBeforeTheGrammar() async throws {
        let format = try ReplyFormat.grammar(#"root ::= ("Paris" | "Rome") "." "#)
        let free = try await reply([], format: format, to: "What is the capital of France?")
        #expect(["Paris.", "Rome."].contains(free.text), "\(free.text)")
        // The answer the model did not choose on this machine, raised.
        let other = free.text == "Paris." ? "Rome" : "Paris"
        let source = """
            return { name = "prefer-other", on_logits = function(logits)
              for _, token in ipairs(tide.tokenize("\(other)")) do logits:bias(token, 30) end
            end }
            """
        let biased = try await reply([try PluginFixtures.plugin("prefer-other", source)], format: format,
                                     to: "What is the capital of France?")
        #expect(biased.text == other + ".", "\(biased.text)")
        #expect(biased.summary?.stopReason == .endOfGeneration)
    }

    /// A banned phrase is taken back and the grammar's other choice is taken.
    @Test func rewindsWorkUnderAGrammar() async throws {
        let format = try ReplyFormat.grammar(#"root ::= "The capital is " ("Paris" | "Rome" | "Berlin") "." "#)
        // The capitals fixture has the model write "Paris" first.
        let banned = try await reply([try PluginFixtures.capitals(text: "The capital is Paris."), plugin("ban-phrases phrases=Paris")],
                                     format: format, to: "What is the capital of France?")
        #expect(banned.failures.isEmpty)
        #expect(banned.text.hasPrefix("The capital is ") && !banned.text.contains("Paris") && banned.text.hasSuffix("."), "\(banned.text)")
        #expect(banned.summary?.statistics.rewinds ?? 0 >= 1)
        #expect(banned.summary?.stopReason == .endOfGeneration)
    }

    /// Every token the grammar allows is banned (each prefix of "yes" and "no" that is one
    /// token): the reply ends, saying why, instead of sampling a token outside the grammar.
    @Test func aBanTheGrammarCannotGetAroundEndsTheReply() async throws {
        let format = try ReplyFormat.grammar(#"root ::= "yes" | "no" "#)
        let source = """
            return { name = "no-yes-or-no", on_logits = function(logits)
              for _, prefix in ipairs({ "y", "ye", "yes", "n", "no" }) do
                local ids = tide.tokenize(prefix)
                if #ids == 1 then logits:ban(ids[1]) end
              end
            end }
            """
        let result = try await reply([try PluginFixtures.plugin("no-yes-or-no", source)], format: format, to: "Is water wet?")
        #expect(result.failures.isEmpty)
        #expect(result.summary?.stopReason == .formatBlocked, "\(result.text)")
        #expect(result.text.isEmpty)
        #expect(result.summary?.format?.problem(with: result.text, stopReason: .formatBlocked)?.contains("incomplete") == true)
    }
}
