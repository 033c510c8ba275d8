import Foundation
import Testing
import TideCore
import TideLua

/// Plugins whose hooks spend their time in C (pattern matching, library functions, the
/// tokenizer) on the real model: each is stopped by its instruction budget, which counts that
/// work (so the stop does not depend on the machine's speed or load), reported once, disabled,
/// and the reply goes on.
@Suite(.serialized) struct HostilePluginTests {
    static let limits = LuaLimits(instructions: 10_000_000, memoryBytes: 64 << 20, time: .seconds(120))
    static let grow = "local function grow(unit, n) local s = unit while #s < n do s = s .. s end return s:sub(1, n) end"

    /// Runs a plugin whose `hook` runs `body` after the file's top level ran `setup`.
    func contained(hook: String, setup: String, body: String) async throws {
        let source = "\(Self.grow) \(setup) local p = {} function p.\(hook)(...) \(body) end return p"
        let plugin = try PluginFixtures.plugin("hostile", source, limits: Self.limits)
        let reply = try await PluginFixtures.session([plugin], maxTokens: 8).reply(to: "What is the capital of France?").collect()
        #expect(reply.failures.count == 1)
        let failure = try #require(reply.failures.first)
        #expect(failure.point.rawValue == hook)
        #expect(failure.message.contains("instruction budget exceeded"), "got: \(failure.message)")
        #expect(reply.summary != nil)
        if hook != "on_prompt" { #expect(!reply.text.isEmpty) }
    }

    @Test(arguments: ["on_token", "should_stop", "on_logits", "on_prompt"])
    func backtrackingPatternInEveryHook(hook: String) async throws {
        try await contained(hook: hook, setup: "local s = grow('a', 30000)", body: "string.find(s, '.-.-.-.-.-.-.-.-.-.-b')")
    }

    @Test(arguments: [
        ("on_token", "local s = grow('(', 200000)", "s:gsub('%b()', '')"),
        ("should_stop", "local s = grow('a', 8e6)", "while true do local t = s .. 'b' end"),
        ("on_logits", "", "while true do local t = ('ab'):rep(2e6, ',') end"),
        ("on_prompt", "local s = grow('a\\0', 4e6)", "while true do local t = string.format('%q', s) end"),
        ("on_token", "local t = {} for i = 1, 2e5 do t[i] = 'w' end", "while true do local x = table.concat(t, ',') end"),
        ("should_stop", "local t = {} for i = 1, 2e5 do t[i] = (i * 7919) % 200000 end", "while true do table.sort(t) end"),
        ("on_logits", "local s = grow('é', 8e6)", "while true do local n = utf8.len(s) end"),
        ("on_prompt", "local chunk = 'return ' .. grow('1 + ', 4e6) .. '1'", "while true do load(chunk) end"),
        ("on_token", "local s = grow('aB', 8e6)", "while true do local t = s:upper() end"),
        ("should_stop", "", "table.move({}, 1, 1e12, 1)"),
        ("on_prompt", "local s = grow('word ', 1e7)", "tide.tokenize(s)"),
        ("on_logits", "local s = grow('word ', 1e7)", "tide.tokenize(s)"),
    ])
    func cWorkInHooks(hook: String, setup: String, body: String) async throws {
        try await contained(hook: hook, setup: setup, body: body)
    }

    @Test func aPathologicalStopPatternDoesNotHangTheReply() async throws {
        let folder = ShippedPluginTests.folder
        let plugin = try LuaPlugin(spec: PluginSpec(parsing: "stop-on-pattern pattern=.-.-.-.-.-.-.-.-.-.-.-.-#"),
                                   locator: PluginLocator(directories: [folder]), limits: Self.limits)
        // The capitals fixture makes the reply long enough, whichever words this machine picks.
        let sea = "The sea is wide and deep and grey under the winter sky, and the waves roll in one after another "
            + "to break on the stones of the long beach below the cliffs."
        let reply = try await PluginFixtures.session([try PluginFixtures.capitals(text: sea), plugin], maxTokens: 60)
            .reply(to: "Describe the sea in three sentences.").collect()
        #expect(reply.failures.count == 1)
        #expect(reply.failures.first?.message.contains("instruction budget exceeded") == true)
        #expect(reply.summary?.statistics.generatedTokens ?? 0 > 20, "the reply goes on")
    }

    @Test func badTokenIdsAndBiasesAreErrors() async throws {
        for (body, message) in [("tide.detokenize({-1})", "no token -1 in a vocabulary of 49152"),
                                ("tide.detokenize({1, 49152})", "no token 49152 in a vocabulary of 49152"),
                                ("tide.detokenize({2^40})", "no token 1099511627776"),
                                ("view:bias(1, 0/0)", "must be a finite number"),
                                ("view:bias(1, math.huge)", "must be a finite number"),
                                ("view:bias(1, -math.huge)", "must be a finite number"),
                                ("view:bias(1, 1e300)", "must be a finite number")] {
            let plugin = try PluginFixtures.plugin("bad", "return { on_logits = function(view) \(body) end }")
            let reply = try await PluginFixtures.session([plugin], maxTokens: 2).reply(to: "Hi").collect()
            #expect(reply.failures.first?.message.contains(message) == true, "\(body): \(reply.failures.first?.message ?? "no error")")
        }
    }
}
