import Testing
import TideCore
import TideFormat
@testable import TideLua

/// What `on_prompt` may set in `prompt.params`: values that once trapped converting to
/// llama.cpp's integers are errors that name the field, and the prompt is left as it was.
@Suite struct PromptParameterTests {
    @Test(arguments: [
        ("prompt.params.top_k = 2^31", "on_prompt set prompt.params.top_k to 2147483648; it must be a whole number from 0 to 2147483647"),
        ("prompt.params.max_tokens = 1e300", "on_prompt set prompt.params.max_tokens to 1e+300; it must be a whole number from 0 to 2147483647"),
        ("prompt.params.max_tokens = 0/0", "on_prompt set prompt.params.max_tokens to nan; it must be a whole number from 0 to 2147483647"),
        ("prompt.params.top_k = 2.5", "on_prompt set prompt.params.top_k to 2.5; it must be a whole number from 0 to 2147483647"),
        ("prompt.params.seed = -2", "on_prompt set prompt.params.seed to -2; it must be a whole number from 0 to 4294967294, or random"),
        ("prompt.params.temperature = 'hot'", "on_prompt set prompt.params.temperature to 'hot'; it must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38"),
        ("prompt.params.top_p = 7", "on_prompt set prompt.params.top_p to 7; it must be a number in (0, 1]"),
    ])
    func outOfRangeParametersAreNamedErrors(assignment: String, message: String) throws {
        let plugin = try PluginFixtures.plugin("params", "return { on_prompt = function(prompt) \(assignment) end }")
        var prompt = PromptContext(messages: [ChatMessage(.user, "Hi")], parameters: GenerationParameters())
        let before = prompt
        do {
            _ = try plugin.onPrompt(&prompt)
            #expect(message.isEmpty, "\(assignment) was accepted")
        } catch let error as LuaError {
            #expect(error.message == message)
            #expect(prompt == before)
        }
    }
}

/// Every generation parameter is in `prompt.params`, under its field's name, and a plugin's
/// change to it reaches the reply's parameters.
@Suite struct PromptSamplerParameterTests {
    func parameters(after code: String) throws -> GenerationParameters {
        let plugin = try PluginFixtures.plugin("samplers", "return { on_prompt = function(prompt) \(code) end }")
        var prompt = PromptContext(messages: [ChatMessage(.user, "Hi")], parameters: GenerationParameters())
        _ = try plugin.onPrompt(&prompt)
        return prompt.parameters
    }

    @Test func pluginsSetTheNewSamplers() throws {
        let parameters = try self.parameters(after: """
            local p = prompt.params
            assert(p.dry_multiplier == 0 and p.mirostat == 0 and #p.dry_sequence_breakers == 4)
            p.dry_multiplier = 0.8; p.mirostat = 2; p.presence_penalty = -1; p.dry_sequence_breakers = {"\\n"}
            """)
        #expect(parameters.dryMultiplier == 0.8 && parameters.mirostat == 2 && parameters.presencePenalty == -1)
        #expect(parameters.drySequenceBreakers == ["\n"])
    }

    /// A bias keyed by a token id (`t[15043] = -100`, which Lua keeps as a number) or by a text is
    /// kept; pairs are taken too; a table that mixes both ways is refused.
    @Test func pluginsSetLogitBiasesEitherWay() throws {
        let map = try parameters(after: #"prompt.params.logit_bias[15043] = -100; prompt.params.logit_bias[" Paris"] = -math.huge"#)
        #expect(Set(map.logitBias) == [LogitBias(.token(15043), -100), LogitBias(.text(" Paris"), -.infinity)])
        let pairs = try parameters(after: #"prompt.params.logit_bias = {{15043, 5}, {"end", -1}}"#)
        #expect(pairs.logitBias == [LogitBias(.token(15043), 5), LogitBias(.text("end"), -1)])
        #expect(throws: LuaError.self) { try parameters(after: #"prompt.params.logit_bias = {{15043, 5}, [20] = 1}"#) }
    }
}

/// `prompt.params.format`: what `on_prompt` sees of the turn's format and what it may set, with
/// no model (the formats are checked when set).
@Suite struct PromptFormatTests {
    func format(after code: String, over base: ReplyFormat? = nil) throws -> ReplyFormat? {
        let plugin = try PluginFixtures.plugin("format", "return { on_prompt = function(prompt) \(code) end }")
        var parameters = GenerationParameters()
        parameters.format = base
        var prompt = PromptContext(messages: [ChatMessage(.user, "Hi")], parameters: parameters)
        _ = try plugin.onPrompt(&prompt)
        return prompt.parameters.format
    }

    @Test func pluginsSetReadAndClearTheFormat() throws {
        #expect(try format(after: "prompt.params.format = 'json'") == .json)
        #expect(try format(after: "prompt.params.format = nil", over: .json) == nil)
        #expect(try format(after: "prompt.params.format = 'text'", over: .json) == nil)
        let schema = try #require(try format(after: #"prompt.params.format = { json_schema = '{"type": "array", "items": {"type": "integer"}}' }"#))
        #expect(schema.kind == .jsonSchema && schema.definition == #"{"type":"array","items":{"type":"integer"}}"#)
        let table = try #require(try format(after: "prompt.params.format = { json_schema = { type = 'object', properties = { b = { type = 'string' }, a = { enum = { 'x', 1, true } } } } }"))
        #expect(table.definition == #"{"properties":{"a":{"enum":["x",1,true]},"b":{"type":"string"}},"type":"object"}"#)
        #expect(try format(after: "prompt.params.format = { grammar = 'root ::= [0-9]+' }")?.kind == .grammar)
        // A plugin that leaves the format alone keeps it, file and all.
        let given = try ReplyFormat.grammar("root ::= \"a\"", file: "a.gbnf")
        #expect(try format(after: "prompt.params.temperature = 0", over: given) == given)
        // And sees it.
        #expect(try format(after: "if prompt.params.format.grammar == 'root ::= \"a\"' then prompt.params.format = 'json' end",
                           over: given) == .json)
    }

    @Test(arguments: [
        ("prompt.params.format = 7", "on_prompt set prompt.params.format to a number it cannot use"),
        ("prompt.params.format = { json_schema = {}, grammar = '' }", "it must be nil, \"json\", {json_schema = SCHEMA} or {grammar = GBNF}"),
        ("prompt.params.format = { grammar = 5 }", "on_prompt set prompt.params.format.grammar to a number; it must be GBNF text"),
        ("prompt.params.format = { json_schema = { 1, x = 2 } }", "holds a table at json_schema that JSON cannot hold"),
        ("prompt.params.format = { json_schema = { minLength = 'x' } }", "unusable format"),
    ])
    func unusableFormatsAreNamedErrors(code: String, message: String) throws {
        #expect {
            try format(after: code)
        } throws: { error in
            (error as? LuaError)?.message.contains(message) == true
        }
    }
}

/// A hook that returns megabytes of text on every call would grow the reply without bound.
@Suite struct HookTextLimitTests {
    @Test func onTokenTextIsBounded() throws {
        let plugin = try PluginFixtures.plugin("flood", "return { on_token = function() return string.rep('x', 2^21) end }")
        let progress = ReplyProgress(text: "", tokenCount: 1, elapsed: .zero)
        #expect(throws: LuaError(.runtime, "on_token returned 2097152 bytes of text; it may return at most 1 MiB")) {
            _ = try plugin.onToken(TokenInfo(id: 1, text: "a", index: 0), reply: progress)
        }
        let modest = try PluginFixtures.plugin("modest", "return { on_token = function(t) return t.text:rep(1000) end }")
        #expect(try modest.onToken(TokenInfo(id: 1, text: "ab", index: 0), reply: progress).replacement?.count == 2000)
    }

    @Test func aLogLineIsCutAtACharacterBoundary() throws {
        let line = PluginHost.logLine(String(repeating: "é", count: 40_000))
        #expect(line.hasSuffix("… (14464 more bytes not shown)"), "\(line.suffix(40))")
        #expect(line.utf8.count < 66_000)
    }
}
