import Foundation
import Testing
import TideLua
import TidePluginHarness

/// Plugin test files run by the harness: busted's forms, the plugin driven through scripted
/// replies, and a test that fails, loops, allocates without end or meets its plugin's error
/// failing alone, saying why.
@Suite struct PluginTestFileTests {
    /// A folder holding `files` (name → text).
    static func folder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-harness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder
    }

    /// Runs `test` as `NAME_test.lua` beside `plugin` (`NAME.lua`).
    static func run(_ test: String, beside plugin: String? = nil, limits: LuaLimits = LuaLimits()) async throws -> PluginTestReport {
        var files = ["marker_test.lua": test]
        if let plugin { files["marker.lua"] = plugin }
        let folder = try folder(files)
        var file = PluginTestFile(path: folder.appendingPathComponent("marker_test.lua").path)
        file.locator = PluginLocator(directories: [folder])
        file.limits = limits
        return await file.run()
    }

    /// Ends the reply at "STOP", takes back " oops" whenever it appears, and marks the prompt.
    static let marker = """
        -- marker: a plugin for the harness's own tests.
        local plugin = { name = "marker", options = { word = "STOP", broken = false }, rewind_window = 64 }
        function plugin.on_prompt(prompt)
          if tide.options.broken then error("broken on purpose") end
          prompt.messages[#prompt.messages].content = prompt.messages[#prompt.messages].content .. " [marked]"
          prompt.params.max_tokens = 9
        end
        function plugin.should_stop(reply)
          local at = reply.text:find(" oops", 1, true)
          if at then tide.rewind(at) return end
          if reply.text:find(tide.options.word, 1, true) then return true, "saw " .. tide.options.word end
        end
        function plugin.on_logits(view)
          for _, candidate in ipairs(view:top(5)) do
            if candidate.text == " no" then view:ban(candidate.id) else view:bias(candidate.id, 1.5) end
          end
        end
        function plugin.on_tool_call(call)
          if call.name == "delete" then return { refuse = "not here" } end
        end
        return plugin
        """

    @Test func aReplyIsDrivenThroughTheReplyLoop() async throws {
        let report = try await Self.run("""
            describe("marker", function()
              it("rewinds, stops and rewrites the prompt", function()
                local reply = harness.plugin():reply{ user = "Go.", pieces = { "a", " oops", " b", " STOP", " c" } }
                assert.equals("a b STOP", reply.text)
                assert.equals("plugin:marker: saw STOP", reply.stop_reason)
                assert.same({ { hook = "marker", text = " oops", tokens = 1 } }, reply.rewinds)
                assert.equals("Go. [marked]", reply.prompt.messages[#reply.prompt.messages].content)
                assert.equals(9, reply.prompt.params.max_tokens)
              end)
              it("reads options as the command line gives them", function()
                local reply = harness.plugin{ word = "b" }:reply{ user = "Go.", pieces = { "a", " b", " c" } }
                assert.equals("plugin:marker: saw b", reply.stop_reason)
              end)
              it("gives a step's scores to on_logits", function()
                local step = harness.plugin():logits{ scores = { { id = 3, text = " yes", logit = 2 }, { id = 4, text = " no", logit = 1 } } }
                assert.same({ { id = 3, delta = 1.5 } }, step.biased)
                assert.same({ 4 }, step.banned)
              end)
              it("asks the policy about a tool call", function()
                assert.same({ refuse = "not here" }, harness.plugin():tool_call{ name = "delete", arguments = { path = "/" } })
                assert.same({ run = true }, harness.plugin():tool_call{ name = "read", arguments = {} })
              end)
            end)
            """, beside: Self.marker)
        #expect(report.failure == nil)
        #expect(report.results.map(\.name) == ["marker rewinds, stops and rewrites the prompt", "marker reads options as the command line gives them",
                                               "marker gives a step's scores to on_logits", "marker asks the policy about a tool call"])
        for result in report.results { #expect(result.outcome == .passed, "\(result.name): \(result.outcome)") }
    }

    @Test func eachTestFailsAloneSayingWhy() async throws {
        var limits = LuaLimits()
        limits.instructions = 2_000_000
        limits.memoryBytes = 16 << 20
        let report = try await Self.run("""
            local order = {}
            describe("outer", function()
              before_each(function() order[#order + 1] = "before" end)
              after_each(function() order[#order + 1] = "after" end)
              it("fails an assertion", function() assert.equals("a", "b") end)
              it("never returns", function() while true do end end)
              it("allocates without end", function() local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 100) .. i end end)
              it("meets its plugin's error", function()
                harness.plugin{ broken = true }:reply{ user = "Go.", pieces = { "a" } }
              end)
              pending("is written later")
              describe("inner", function()
                -- after_each runs after a failure, but not once a limit stopped the test.
                it("sees the hooks in order", function() assert.same({ "before", "after", "before", "before", "before", "after", "before" }, order) end)
              end)
            end)
            """, beside: Self.marker, limits: limits)
        #expect(report.failure == nil)
        let outcomes = Dictionary(report.results.map { ($0.name, $0.outcome) }) { $1 }
        if case .failed(let message) = outcomes["outer fails an assertion"] {
            #expect(message.hasSuffix("marker_test.lua:5: expected \"a\", got \"b\""), "\(message)")
        } else {
            Issue.record("\(report.results)")
        }
        guard case .failed(let loop) = outcomes["outer never returns"], case .failed(let memory) = outcomes["outer allocates without end"],
              case .failed(let plugin) = outcomes["outer meets its plugin's error"] else {
            Issue.record("\(report.results)")
            return
        }
        #expect(loop.contains("instruction budget"))
        #expect(memory.contains("memory limit"))
        #expect(plugin.contains("broken on purpose"), "\(plugin)")
        #expect(outcomes["outer is written later"] == .pending)
        #expect(outcomes["outer inner sees the hooks in order"] == .passed)
    }

    @Test func aFileThatDoesNotLoadSaysWhereAndAPluginThatIsMissingSaysWhatToDo() async throws {
        let syntax = try await Self.run("it(\"x\", function() assert.equals(1, 1) end\n")
        #expect(syntax.failure?.contains("marker_test.lua:2:") == true, "\(syntax.failure ?? "")")
        #expect(syntax.results.isEmpty)
        let alone = try await Self.run("it(\"loads\", function() harness.plugin() end)\n")
        guard case .failed(let message) = alone.results.first?.outcome else {
            Issue.record("\(alone.results)")
            return
        }
        #expect(message.contains("no plugin beside it"), "\(message)")
    }

    /// A plugin named with a spec written as on the command line takes its options; a reply
    /// given in a model's tokens needs a model's tokenizer, and says so without one.
    @Test func aSpecGivesOptionsAsTheCommandLineDoesAndModelTokensNeedAModel() async throws {
        let report = try await Self.run("""
            it("takes the spec's options", function()
              local reply = harness.plugin("marker word=END", { broken = false }):reply{ user = "Go.", pieces = { "a", " END", " b" } }
              assert.equals("plugin:marker: saw END", reply.stop_reason)
            end)
            it("needs a model for ids", function()
              harness.plugin():reply{ ids = { 1, 2 } }
            end)
            it("takes one way of giving the reply", function()
              harness.plugin():reply{ pieces = { "a" }, text = "a" }
            end)
            """, beside: Self.marker)
        #expect(report.results.first?.outcome == .passed, "\(report.results)")
        guard report.results.count == 3, case .failed(let needs) = report.results[1].outcome,
              case .failed(let both) = report.results[2].outcome else {
            Issue.record("\(report.results)")
            return
        }
        #expect(needs.contains("needs a model's tokenizer, and none is set up here"), "\(needs)")
        #expect(both.contains("one of pieces, ids or text, not pieces and text"), "\(both)")
    }
}
