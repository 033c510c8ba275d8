import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    @Suite struct PluginsCommandTests {
        func scratchPlugin(_ source: String) throws -> String {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("tide-cli-\(UUID().uuidString).lua")
            try source.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }

        @Test func listShowsTheShippedPlugins() throws {
            let result = try TideProcess.run(["plugins", "list"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("stop-after-sentences 1.0  Stop once the reply has N sentences."))
            #expect(result.stdout.contains("hooks: should_stop"))
            #expect(result.stdout.contains("calculator 1.0  A tool that evaluates arithmetic expressions.\n    options: digits=12\n"
                + "    hooks: none\n    tools: calculate\n"), "\(result.stdout)")
        }

        /// The calculator's tool called by the real model: the call is valid by construction and
        /// runs; its line on standard error and the statistics say so.
        @Test func generateCallsAToolAndSaysSo() throws {
            // One round: the required call, then an answer without tools, whichever words the model picks.
            let result = try TideProcess.run(["generate", "--temperature", "0", "--plugin", "calculator", "--tool-choice", "required",
                                              "--max-tool-rounds", "1", "--parallel-tool-calls", "false", "--stats",
                                              "What is 12.5% of 3400?"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("tool calculate {\"expression\":"), "\(result.stderr)")
            #expect(result.stderr.contains("tool calls: 1 in 1 round ("), "\(result.stderr)")
            #expect(!result.stderr.contains("the model's tool call was not run"), "\(result.stderr)")
            let unknown = try TideProcess.run(["generate", "--plugin", "calculator", "--tool", "nope", "Hi"])
            #expect(unknown.status == 1 && unknown.stderr.contains("no loaded plugin or MCP server has a tool named nope; the tools are calculate"),
                    "\(unknown.stderr)")
        }

        /// A tool's 10 MB result is cut to the room the context has left, and says so, and the turn
        /// goes on: the model answers (any words), and a plugin that quotes the result's end (certain
        /// words) shows the note the model saw.
        @Test func aResultLargerThanTheContextIsCutToFit() throws {
            let plugins = try ScratchPlugins.folder(["dump": """
                -- A tool whose result is 10 MB; with quote=true, answers the result by quoting its end.
                return {
                  name = "dump",
                  options = { quote = false },
                  tools = { dump = { description = "Dumps everything.", run = function() return string.rep("word ", 2000000) end } },
                  on_prompt = function(prompt)
                    local last = prompt.messages[#prompt.messages]
                    if tide.options.quote and last.role == "tool" then return "The end: " .. last.content:sub(-90) end
                  end,
                }
                """])
            let dump = plugins.appendingPathComponent("dump.lua").path
            for quote in [false, true] {
                let result = try TideProcess.run(["generate", "--ctx-size", "1024", "--max-tokens", "40", "--plugin", "\(dump) quote=\(quote)",
                                                  "--tool-choice", "required", "--max-tool-rounds", "1", "Dump it."])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("tool dump {} → word word"), "\(result.stderr)")
                if quote {
                    #expect(result.stdout.contains("[the result was cut to fit the context: 10000000 bytes, of which the first "),
                            "\(result.stdout)")
                }
            }
        }

        @Test func checkReportsWhatAPluginIs() throws {
            let result = try TideProcess.run(["plugins", "check", "word-budget words=12"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("ok: word-budget 1.0"))
            #expect(result.stdout.contains("options: words=12"))
        }

        @Test(arguments: [
            ("return {", "unexpected symbol near <eof>"),
            ("local p = {}", "this file returns nothing"),
            ("return { on_tokn = function() end }", "unknown hook on_tokn"),
            ("return { options = { x = {} } }", "the default of option 'x' is a table"),
        ])
        func checkExplainsBrokenPlugins(source: String, message: String) throws {
            let result = try TideProcess.run(["plugins", "check", try scratchPlugin(source)])
            #expect(result.status != 0)
            #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        }

        @Test func generateRunsPluginsAndStrictMakesTheirErrorsFatal() throws {
            let stopped = try TideProcess.run(["generate", "--temperature", "0", "--stats",
                                               "--plugin", "stop-after-sentences sentences=1", "Describe the sea."])
            #expect(stopped.status == 0)
            #expect(stopped.stderr.contains("stop: plugin:stop-after-sentences: 1 sentence"))

            let looping = try scratchPlugin("return { on_token = function() while true do end end }")
            let lenient = try TideProcess.run(["generate", "--temperature", "0", "--max-tokens", "8", "--plugin", looping, "Hi"])
            #expect(lenient.status == 0)
            #expect(lenient.stderr.contains("failed in on_token: instruction budget exceeded"))
            #expect(!lenient.stdout.isEmpty)

            let strict = try TideProcess.run(["generate", "--strict", "--temperature", "0", "--max-tokens", "8",
                                              "--plugin", looping, "Hi"])
            #expect(strict.status != 0)
            #expect(strict.stderr.contains("failed in on_token: instruction budget exceeded"))
        }

        @Test func badPluginOptionsStopBeforeGenerating() throws {
            let result = try TideProcess.run(["generate", "--plugin", "word-budget words=many", "Hi"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("plugin word-budget: words must be a whole number, not 'many'"))
            #expect(result.stdout.isEmpty)
        }
    }
}

extension CommandLineTests {
    @Suite struct PluginLimitTests {
        @Test func theMemoryCapIsConfigurable() throws {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("tide-mem-\(UUID().uuidString).lua")
            try "return { on_token = function() local t = {} for i = 1, 1e6 do t[i] = i end end }"
                .write(to: url, atomically: true, encoding: .utf8)
            let capped = try TideProcess.run(["generate", "--plugin-memory", "2", "--temperature", "0", "--max-tokens", "4",
                                              "--plugin", url.path, "Hi"])
            #expect(capped.status == 0)
            #expect(capped.stderr.contains("failed in on_token"))
            let roomy = try TideProcess.run(["generate", "--plugin-memory", "256", "--temperature", "0", "--max-tokens", "4",
                                             "--plugin", url.path, "Hi"])
            #expect(roomy.status == 0)
            #expect(!roomy.stderr.contains("failed"))
        }
    }
}
