import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// The tool-allow policy against a real server that is as lenient about paths as servers in
    /// the wild (Tests/Fixtures/mcp/files_server.py), through `tide generate` on the bundled
    /// model: each way out of the folder reaches the server and reads the secret without the
    /// policy, and is refused with it. And every command that loads plugins and MCP servers
    /// together offers the servers' tools with a plugin loaded.
    @Suite(.enabled(if: MCPTestServers.missing == nil, "\(MCPTestServers.missing ?? "")"))
    struct ToolAllowCommandTests {
        /// The files server's command, with `root` as its folder.
        static func files(root: String) -> String {
            let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/mcp/files_server.py")
            return MCPCommandTests.server("files", [MCPTestServers.bin.appendingPathComponent("python").path, server.path, root])
        }

        /// `value` as a Lua literal: strings with every byte but letters and digits escaped.
        static func lua(_ value: Any) -> String {
            switch value {
            case let text as String:
                "\"" + text.utf8.map { byte in
                    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                        ? String(UnicodeScalar(byte)) : String(format: "\\%03d", byte)
                }.joined() + "\""
            case let object as [String: Any]:
                "{ " + object.map { "[\(lua($0.key))] = \(lua($0.value))" }.joined(separator: ", ") + " }"
            case let list as [Any]:
                "{ " + list.map(lua).joined(separator: ", ") + " }"
            default:
                "\(value)"
            }
        }

        /// A plugin, loaded before the policy, that puts `arguments` in the model's call: the call
        /// any model could make, for the policy after it to judge.
        static func injecting(_ arguments: [String: Any], in folder: URL) throws -> String {
            let plugin = folder.appendingPathComponent("inject-\(UUID().uuidString).lua")
            try "return { name = \"inject\", on_tool_call = function(call) return { arguments = \(lua(arguments)) } end }"
                .write(to: plugin, atomically: true, encoding: .utf8)
            return plugin.path
        }

        /// Every escape the issue found, and the spellings beside them: the policy decides on
        /// what the server opens. `ROOT/folder/link` leads to `ROOT/outside`; `dangling` to a file
        /// there that does not exist yet.
        @Test func everyWayOutOfTheFolderReachesTheServerAndIsRefused() throws {
            let scratch = try CommandLineTests.scratchFolder("tool-allow")
            let root = scratch.resolvingSymlinksInPath().path
            let (folder, secret) = (root + "/folder", root + "/outside/secret")
            let manager = FileManager.default
            try manager.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
            try manager.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
            let words = "secret-\(UUID().uuidString)"
            try words.write(toFile: secret, atomically: true, encoding: .utf8)
            try "inside".write(toFile: folder + "/inside.txt", atomically: true, encoding: .utf8)
            try manager.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "../outside")
            try manager.createSymbolicLink(atPath: folder + "/dangling", withDestinationPath: "../outside/new.txt")
            let policy = "tool-allow tools=files__* folder=\(folder)"

            func call(_ tool: String, _ arguments: [String: Any], policy: String?) throws -> String {
                let plugins = [try Self.injecting(arguments, in: scratch)] + (policy.map { [$0] } ?? [])
                let result = try TideProcess.run(["generate", "--mcp", Self.files(root: folder)] + plugins.flatMap { ["--plugin", $0] }
                                                 + ["--tool", tool, "--tool-choice", "required", "--max-tool-rounds", "1",
                                                    "--max-tokens", "40", "--temperature", "0", "Go ahead."])
                return MCPCommandTests.toolLines(result.stderr).first ?? result.stderr
            }

            let reads: [(String, [String: Any])] = [
                ("an object under a path argument", ["path": ["value": secret]]),
                ("a link out", ["path": "link/secret"]),
                ("a link out, then ..", ["path": folder + "/link/../outside/secret"]),
                ("an absolute path under another name", ["opts": ["p": secret]]),
                ("%2e%2e", ["path": "%2e%2e/outside/secret"]),
                ("two dot leader", ["path": "\u{2025}/outside/secret"]),
                ("one dot leaders", ["path": "\u{2024}\u{2024}/outside/secret"]),
            ]
            for (name, arguments) in reads {
                let open = try call("files__read_file", arguments, policy: nil)
                #expect(open.contains("→ \(words)"), "without the policy, \(name) reaches the secret: \(open)")
                let guarded = try call("files__read_file", arguments, policy: policy)
                // (The line shows the start of the reason; ToolAllowPathTests checks each whole.)
                #expect(guarded.contains("failed: error: tool-allow refused this call: argument ") && !guarded.contains(words),
                        "\(name): \(guarded)")
            }
            // A write through a link out to a file that does not exist yet would create it there.
            let created = root + "/outside/new.txt"
            let guarded = try call("files__write_file", ["path": "dangling", "content": "written"], policy: policy)
            #expect(guarded.contains("tool-allow refused this call: argument path (dangling) is outside \(folder): it leads to "),
                    "\(guarded)")
            #expect(!manager.fileExists(atPath: created))
            let open = try call("files__write_file", ["path": "dangling", "content": "written"], policy: nil)
            #expect(open.contains("→ written"), "\(open)")
            #expect(manager.fileExists(atPath: created), "without the policy the write lands outside")
            // What stays inside runs, a relative path as the full path inside the folder.
            let inside = try call("files__read_file", ["path": "sub/../inside.txt"], policy: policy)
            #expect(inside.hasPrefix("tool files__read_file {\"path\":\"\(folder)/inside.txt\"} → inside"), "\(inside)")
        }

        /// `tool-allow` loaded beside an MCP server: chat, generate, run and serve each offer the
        /// server's tools, and the policy lets the listed ones run.
        @Test func everyCommandOffersTheServersToolsWithAPluginLoaded() async throws {
            let time = MCPCommandTests.server("time", MCPTestServers.time)
            let policy = "tool-allow tools=time__*"

            // generate: the same prompt with the plugin as without it (the tools in it), and a required call runs.
            func generate(_ extra: [String]) throws -> (tokens: Int?, result: TideProcess.Result) {
                let result = try TideProcess.run(["generate", "--mcp", time, "--json", "--max-tokens", "60", "--temperature", "0"] + extra + ["hi"])
                let json = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
                return ((json?["usage"] as? [String: Any])?["prompt_tokens"] as? Int, result)
            }
            let bare = try generate([])
            let withPlugin = try generate(["--plugin", policy])
            let withoutTools = try TideProcess.run(["generate", "--json", "--max-tokens", "1", "hi"])
            let plain = (try? JSONSerialization.jsonObject(with: Data(withoutTools.stdout.utf8)) as? [String: Any])
                .flatMap { ($0["usage"] as? [String: Any])?["prompt_tokens"] as? Int }
            #expect(bare.tokens != nil && withPlugin.tokens == bare.tokens, "\(bare.result.stderr)\n\(withPlugin.result.stderr)")
            #expect(plain != nil && (withPlugin.tokens ?? 0) > (plain ?? .max), "the tools are in the prompt: \(String(describing: withPlugin.tokens))")
            let required = try generate(["--plugin", policy, "--tool-choice", "required", "--tool", "time__get_current_time"])
            #expect(MCPCommandTests.toolLines(required.result.stderr).first?.hasPrefix("tool time__get_current_time ") == true,
                    "\(required.result.stderr)")

            // chat: /tools lists the server's tools beside the plugin.
            let chat = try TideProcess.run(["chat", "--mcp", time, "--plugin", policy], stdin: "/tools\n")
            #expect((chat.stdout + chat.stderr).contains("on  time__get_current_time (mcp:time)"), "\(chat.stdout)\n\(chat.stderr)")

            // run: a script's required call, the plugin given on the command line.
            let folder = try CommandLineTests.scratchFolder("tool-allow-run")
            let script = folder.appendingPathComponent("time.tide")
            try "@temperature 0\n@max-tokens 80\n@tool-choice time__get_current_time\nuser: What time is it in Paris?\nexpect: tool-call time__get_current_time\n"
                .write(to: script, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", "--mcp", time, "--plugin", policy, script.path])
            #expect(run.status == 0 && run.stdout.contains("PASS expect: tool-call time__get_current_time"), "\(run.stdout)\n\(run.stderr)")

            // serve: the server's own tools, run on the server for a request without tools.
            let server = try await TideServer(["--mcp", time, "--plugin", policy])
            let (code, json) = try await server.post(#"{"model": "m", "temperature": 0, "max_tokens": 60, "tool_choice": "required", "messages": [{"role": "user", "content": "What time is it in Paris?"}]}"#)
            #expect(code == 200, "\(json)")
            #expect(server.log(tail: 4000).contains("ran tools: time__"), "\(server.log(tail: 4000))")
        }
    }
}
