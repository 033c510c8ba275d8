import Testing
import TideCore
import TideLua
import TideTestSupport

/// `tide.rewind` and `rewind_window` from Lua, on a scripted backend (no model file): the
/// rewind takes text back unseen, and every misuse is the plugin's failure, named, with the
/// reply kept.
@Suite struct RewindPluginTests {
    static let tokens = ["Once", " upon", " a", " time", " a", " bad", " wolf", "."]

    func plugin(_ source: String) throws -> LuaPlugin {
        try LuaPlugin(source: source, path: "rewinder.lua")
    }

    func reply(_ source: String, tokens: [String] = tokens, policy: HookErrorPolicy = .disableHook,
               maxRewinds: Int = 32) async throws -> CollectedReply {
        var parameters = GenerationParameters()
        parameters.maxRewinds = maxRewinds
        let session = ChatSession(backend: ScriptedBackend(tokens), parameters: parameters, hooks: [try plugin(source)],
                                  hookErrorPolicy: policy)
        return try await session.reply(to: "Tell me a story.").collect()
    }

    @Test func aPhraseTakenBackInShouldStopIsNeverShown() async throws {
        let result = try await reply("""
            return {
              rewind_window = 16,
              should_stop = function(reply)
                local at = reply.text:find(" bad", 1, true)
                if at then tide.rewind(at) end
              end,
            }
            """)
        #expect(result.texts.joined() == "Once upon a time a wolf.")
        #expect(result.summary?.statistics.rewinds == 1)
        #expect(result.failures.isEmpty)
    }

    @Test func theWindowMayBeAFunctionOfTheOptions() async throws {
        let result = try await reply("""
            return {
              options = { phrase = " bad" },
              rewind_window = function() return #tide.options.phrase + 8 end,
              should_stop = function(reply)
                local at = reply.text:find(tide.options.phrase, 1, true)
                if at then tide.rewind(at) end
              end,
            }
            """)
        #expect(result.texts.joined() == "Once upon a time a wolf.")
    }

    @Test(arguments: [
        ("on_token", "return { rewind_window = 8, should_stop = function() end, on_token = function() tide.rewind(1) end }"),
        ("on_prompt", "return { rewind_window = 8, should_stop = function() end, on_prompt = function() tide.rewind(1) end }"),
        ("on_reply", "return { rewind_window = 8, should_stop = function() end, on_reply = function() tide.rewind(1) end }"),
    ])
    func rewindingOutsideShouldStopIsAnError(point: String, source: String) async throws {
        let result = try await reply(source)
        #expect(result.failures.first?.message.contains("tide.rewind can only be called in should_stop, not in \(point)") == true,
                "\(result.failures)")
        #expect(result.failures.first?.hookName == "rewinder")
        #expect(result.texts.joined() == Self.tokens.joined(), "the reply is kept")
    }

    @Test func rewindingPastTheWindowTheStartOrForeverIsTheWrongOfThePlugin() async throws {
        let past = try await reply("return { rewind_window = 4, should_stop = function(reply) if #reply.text > 20 then tide.rewind(#reply.text - 10) end end }")
        #expect(past.failures.first?.message.contains("more than its rewind window of 4") == true, "\(past.failures)")
        #expect(past.texts.joined() == Self.tokens.joined())
        let start = try await reply("return { rewind_window = 4, should_stop = function() tide.rewind(0) end }")
        #expect(start.failures.first?.message.contains("past the start of the reply") == true, "\(start.failures)")
        let forever = try await reply("""
            return { rewind_window = 8, should_stop = function(reply) tide.rewind(#reply.text, { ban = false }) end }
            """, maxRewinds: 5)
        #expect(forever.summary?.stopReason == .rewindLimit)
        #expect(forever.failures.first?.message.contains("more than 5 rewinds in one reply") == true, "\(forever.failures)")
        #expect(forever.texts.joined() == "", "nothing taken back was shown")
        await #expect(throws: HookFailure.self) {
            _ = try await reply("return { rewind_window = 4, should_stop = function() tide.rewind(0) end }", policy: .failReply)
        }
    }

    @Test(arguments: [
        ("return { rewind_window = 8 }", "rewind_window needs a should_stop hook"),
        ("return { rewind_window = -1, should_stop = function() end }", "rewind_window must be a whole number of bytes from 0 to 1024"),
        ("return { rewind_window = 2.5, should_stop = function() end }", "not 2.5"),
        ("return { rewind_window = 'far', should_stop = function() end }", "not a string"),
    ])
    func aBadWindowIsRefusedWhenThePluginLoads(source: String, message: String) throws {
        do {
            _ = try plugin(source)
            Issue.record("\(source) loaded")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    @Test func aWindowFunctionThatFailsDisablesThePlugin() async throws {
        let result = try await reply("return { rewind_window = function() error('no window today') end, should_stop = function() end }")
        #expect(result.failures.first?.message.contains("no window today") == true, "\(result.failures)")
        #expect(result.texts.joined() == Self.tokens.joined())
    }

    @Test func badArgumentsAreLuaErrors() async throws {
        let result = try await reply("return { rewind_window = 8, should_stop = function() tide.rewind('here') end }")
        #expect(result.failures.first?.message.contains("tide.rewind needs the byte where the text to take back starts") == true,
                "\(result.failures)")
    }
}
