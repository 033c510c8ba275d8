import Testing
import TideCore
@testable import TideLua

/// What `on_prompt` may set in `prompt.params`: values that once trapped converting to
/// llama.cpp's integers are errors that name the field, and the prompt is left as it was.
@Suite struct PromptParameterTests {
    @Test(arguments: [
        ("prompt.params.top_k = 2^31", "on_prompt set prompt.params.top_k to 2147483648; it must be a whole number from 0 to 2147483647"),
        ("prompt.params.max_tokens = 1e300", "on_prompt set prompt.params.max_tokens to 1e+300; it must be a whole number"),
        ("prompt.params.max_tokens = 0/0", "on_prompt set prompt.params.max_tokens to nan; it must be a whole number"),
        ("prompt.params.top_k = 2.5", "on_prompt set prompt.params.top_k to 2.5; it must be a whole number"),
        ("prompt.params.seed = -1", "on_prompt set prompt.params.seed to -1; it must be a whole number from 0 to 4294967295"),
        ("prompt.params.temperature = 'hot'", "on_prompt set prompt.params.temperature to a string; it must be a number"),
        ("prompt.params.top_p = 7", "on_prompt set prompt.params.top_p to 7.0; it must be a number in (0, 1]"),
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
