import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide plugins new`, `test`, `types`, `luacheckrc` and `check`'s lint, as an author uses them.
    @Suite struct PluginAuthoringCommandTests {
        @Test func aNewPluginsTestsPassAndAnEditThatBreaksThemFails() throws {
            let folder = try CommandLineTests.scratchFolder("authoring")
            let made = try TideProcess.run(["plugins", "new", "stop-on-code", "--hook", "stop", "--hook", "on_token"], workingDirectory: folder)
            #expect(made.status == 0, "\(made.stderr)")
            #expect(made.stdout.contains("wrote Plugins/stop-on-code.lua (hooks: should_stop, on_token) and Plugins/stop-on-code_test.lua"))
            let again = try TideProcess.run(["plugins", "new", "stop-on-code"], workingDirectory: folder)
            #expect(again.status == 2)
            #expect(again.stderr.contains("Plugins/stop-on-code.lua exists"), "\(again.stderr)")
            let shadow = try TideProcess.run(["plugins", "new", "word-budget"], workingDirectory: folder)
            #expect(shadow.status != 0)
            #expect(shadow.stderr.contains("shipped with Tide"), "\(shadow.stderr)")

            let passed = try TideProcess.run(["plugins", "test", "-v"], workingDirectory: folder)
            #expect(passed.status == 0, "\(passed.stdout)\(passed.stderr)")
            #expect(passed.stdout.contains("Plugins/stop-on-code_test.lua: PASS stop-on-code ends the reply at its word"))
            #expect(passed.stdout.contains("3 passed, 0 failed (1 file, "), "\(passed.stdout)")

            let plugin = folder.appendingPathComponent("Plugins/stop-on-code.lua")
            try String(contentsOf: plugin, encoding: .utf8).replacingOccurrences(of: "return true, \"said \"", with: "return true, \"saw \"")
                .write(to: plugin, atomically: true, encoding: .utf8)
            let junit = folder.appendingPathComponent("report.xml")
            let failed = try TideProcess.run(["plugins", "test", "--junit", junit.path, "Plugins/stop-on-code.lua"], workingDirectory: folder)
            #expect(failed.status == 1)
            #expect(failed.stdout.contains("FAIL stop-on-code ends the reply at its word\n    Plugins/stop-on-code_test.lua:"), "\(failed.stdout)")
            #expect(failed.stdout.contains("expected \"plugin:stop-on-code: said over\", got \"plugin:stop-on-code: saw over\""))
            let xml = try String(contentsOf: junit, encoding: .utf8)
            #expect(xml.contains("<testsuites name=\"tide plugins test\" tests=\"3\" failures=\"1\" errors=\"0\""), "\(xml)")

            let tap = try TideProcess.run(["plugins", "test", "--tap", "Plugins/"], workingDirectory: folder)
            let lines = tap.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "TAP version 14")
            #expect(lines.last == "1..3")
            #expect(lines.contains("not ok 1 - Plugins/stop-on-code_test.lua: stop-on-code ends the reply at its word"), "\(tap.stdout)")

            try "it(\"x\", function()\n".write(to: folder.appendingPathComponent("Plugins/broken_test.lua"), atomically: true, encoding: .utf8)
            let broken = try TideProcess.run(["plugins", "test", "Plugins/broken_test.lua"], workingDirectory: folder)
            #expect(broken.status == 2)
            #expect(broken.stdout.contains("Plugins/broken_test.lua:2:"), "\(broken.stdout)")
            let none = try TideProcess.run(["plugins", "test", "."], workingDirectory: folder.appendingPathComponent("Plugins").deletingLastPathComponent())
            #expect(none.status == 2)
            #expect(none.stderr.contains("no test files"), "\(none.stderr)")
        }

        /// A reply given as token ids or as text goes through the bundled model's tokenizer (its
        /// vocabulary, not its weights): the plugin sees the model's ids, and `tide.tokenize` agrees.
        @Test func aReplyGivenInTheModelsTokensShowsThePluginItsIds() throws {
            let folder = try CommandLineTests.scratchFolder("model-tokens")
            try """
                -- ids: shows each token as its id.
                return { name = "ids", on_token = function(token)
                  if token.final then return nil end
                  return "<" .. token.id .. ">"
                end }
                """.write(to: folder.appendingPathComponent("ids.lua"), atomically: true, encoding: .utf8)
            try """
                describe("ids", function()
                  it("replies with the ids given", function()
                    assert.equals("<19556><28>", harness.plugin():reply{ ids = { 19556, 28 } }.text)
                  end)
                  it("splits text as the model does", function()
                    local reply = harness.plugin():reply{ text = "Hello, world" }
                    assert.equals(3, reply.tokens)
                    assert.equals("<19556><28><905>", reply.text)
                  end)
                  it("refuses an id the model lacks", function()
                    assert.has_error(function() harness.plugin():reply{ ids = { 999999 } } end)
                  end)
                end)
                """.write(to: folder.appendingPathComponent("ids_test.lua"), atomically: true, encoding: .utf8)
            let result = try TideProcess.run(["plugins", "test", "-v", "ids_test.lua"], workingDirectory: folder)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("3 passed, 0 failed"), "\(result.stdout)")
        }

        @Test func checkLintsWithTheSandboxsConfiguration() throws {
            let folder = try CommandLineTests.scratchFolder("lint")
            let plugin = folder.appendingPathComponent("leaky.lua")
            try "local p = {}\nfunction p.on_reply(reply) return io.read() .. reply.text end\nreturn p\n"
                .write(to: plugin, atomically: true, encoding: .utf8)
            let checked = try TideProcess.run(["plugins", "check", plugin.path])
            #expect(checked.stdout.contains("ok: leaky"))
            if checked.stdout.contains("luacheck is not installed") {
                #expect(checked.status == 0)
            } else {
                #expect(checked.status == 1)
                #expect(checked.stdout.contains("accessing undefined variable 'io'"), "\(checked.stdout)")
            }
        }

        @Test func theEditorFilesAreLuaAndNameTheAPI() throws {
            let types = try TideProcess.run(["plugins", "types"])
            #expect(types.status == 0)
            #expect(types.stdout.hasPrefix("---@meta tide\n"))
            for name in ["tide.rewind", "tide.tokenize", "@class tide.LogitsView", "@field should_stop (fun(reply: tide.Reply): boolean?, string?)?"] {
                #expect(types.stdout.contains(name), "\(name)")
            }
            let rc = try TideProcess.run(["plugins", "luacheckrc"])
            #expect(rc.status == 0)
            #expect(rc.stdout.contains("std = \"tide\""))
            #expect(rc.stdout.contains("files[\"**/*_test.lua\"] = { std = \"tide+tide_test\" }"))
        }
    }
}
