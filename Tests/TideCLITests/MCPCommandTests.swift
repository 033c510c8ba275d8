import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `--mcp`: MCP servers from PyPI started by `tide`, their tools called by the bundled model
    /// (the grammar makes the call; `--tool` names which), the policy hooks deciding what runs
    /// and what the model reads, and every way a server fails. What is asserted holds for any
    /// words the model picks: an echoed argument comes back as it went, a refusal, a rewrite, an
    /// answer and a redaction are the plugins'.
    @Suite(.enabled(if: MCPTestServers.missing == nil, "\(MCPTestServers.missing ?? "")"))
    struct MCPCommandTests {
        /// `NAME: COMMAND` for `--mcp`, each word quoted.
        static func server(_ name: String, _ command: [String]) -> String {
            "\(name): " + command.map { "'\($0)'" }.joined(separator: " ")
        }

        static let misbehaving = server("mis", MCPTestServers.misbehaving())

        /// A plugin with a policy for each of the misbehaving server's tools: echo's text is
        /// rewritten, add is answered in its place, big is asked for 50 MiB.
        static let policy = """
            -- A test's policy: rewrites, answers and enlarges calls.
            return {
              name = "policy",
              on_tool_call = function(call)
                if call.name == "mis__echo" then return { arguments = { text = "rewritten by policy" } } end
                if call.name == "mis__add" then return { answer = "answered by policy in round " .. call.round .. " for " .. call.provider } end
                if call.name == "mis__big" then return { arguments = { mebibytes = 50 } } end
                if call.name == "mis__slow" then return { arguments = { seconds = 30 } } end
              end,
            }
            """

        /// The `tool NAME ARGUMENTS → RESULT` lines `tide generate` writes on standard error.
        static func toolLines(_ stderr: String) -> [String] {
            stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("tool ") }
        }

        func generate(_ arguments: [String], tool: String, prompt: String = "Go ahead.") throws -> TideProcess.Result {
            try TideProcess.run(["generate", "--mcp", Self.misbehaving, "--tool", tool, "--tool-choice", "required",
                                 "--max-tokens", "120", "--temperature", "0"] + arguments + [prompt])
        }

        @Test func listShowsEachServersToolsUnderTheirNames() throws {
            let list = try TideProcess.run(["mcp", "list", "--mcp", Self.server("time", MCPTestServers.time), "--mcp", Self.misbehaving])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains("time: ") && list.stdout.contains("(2 tools)"))
            #expect(list.stdout.contains("    time__get_current_time  Get current time in a specific timezone\n"
                                         + "        parameters: timezone (string, required)\n"), "\(list.stdout)")
            #expect(list.stdout.contains("    mis__add  Adds two numbers.\n        parameters: a (integer, required), b (integer, required)\n"))
            let json = try TideProcess.run(["mcp", "list", "--json", "--mcp", Self.misbehaving])
            let tools = json.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(tools.count == 8)
            #expect(tools.first { $0["name"] as? String == "mis__echo" }?["tool"] as? String == "echo")
            #expect(tools.allSatisfy { $0["server"] as? String == "mis" && $0["parameters"] is [String: Any] })
            let none = try TideProcess.run(["mcp", "list"])
            #expect(none.status != 0 && none.stderr.contains("give the servers to list"))
        }

        @Test func theModelsCallRunsOnTheServerAndItsResultComesBack() throws {
            let result = try generate([], tool: "mis__echo")
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(Self.toolLines(result.stderr).first, "\(result.stderr)")
            // `tool mis__echo {"text":"…"} → …`: the server echoes the text the model wrote.
            let arguments = try #require(line.firstMatch(of: #/^tool mis__echo (\{.*\}) → /#)?.output.1)
            let text = try #require((try JSONSerialization.jsonObject(with: Data(arguments.utf8)) as? [String: Any])?["text"] as? String)
            #expect(line.contains(" → \(text.replacingOccurrences(of: "\n", with: " ")) ("), "\(line)")
        }

        @Test func policyHooksRefuseRewriteAnswerAndRedact() throws {
            let folder = try CommandLineTests.scratchFolder("mcp-policy")
            let plugin = folder.appendingPathComponent("policy.lua")
            try Self.policy.write(to: plugin, atomically: true, encoding: .utf8)

            let refused = try generate(["--plugin", "tool-allow tools=mis__add,time__*"], tool: "mis__echo")
            #expect(Self.toolLines(refused.stderr).first?.contains(
                "failed: error: tool-allow refused this call: mis__echo is not among the tools allowed here (mis__add,time__*)") == true,
                "\(refused.stderr)")

            let rewritten = try generate(["--plugin", plugin.path], tool: "mis__echo")
            #expect(Self.toolLines(rewritten.stderr).first?.hasPrefix(#"tool mis__echo {"text":"rewritten by policy"} → rewritten by policy ("#)
                    == true, "\(rewritten.stderr)")

            let answered = try generate(["--plugin", plugin.path], tool: "mis__add")
            #expect(Self.toolLines(answered.stderr).first?.contains("→ answered by policy in round 1 for mcp:mis (") == true,
                    "\(answered.stderr)")

            let redacted = try generate(["--plugin", "redact-emails"], tool: "mis__email")
            let line = Self.toolLines(redacted.stderr).first ?? ""
            #expect(line.contains("→ Write to [redacted] or to [redacted] for the report.") && !line.contains("@"), "\(redacted.stderr)")

            // 50 MiB from the server; the model reads what fits, at most 16 KiB, as it would of a Lua tool.
            let big = try generate(["--plugin", plugin.path, "--mcp-timeout", "120"], tool: "mis__big")
            let cut = try #require(Self.toolLines(big.stderr).first?.firstMatch(of: /… \((\d+) more characters\)/)?.output.1, "\(big.stderr)")
            #expect(Int(cut).map { $0 + 200 <= 16_384 && $0 > 1000 } == true, "\(cut)")
        }

        @Test func ctrlCStopsAReplyWaitingOnAServer() async throws {
            let folder = try CommandLineTests.scratchFolder("mcp-interrupt")
            let plugin = folder.appendingPathComponent("policy.lua")
            try Self.policy.write(to: plugin, atomically: true, encoding: .utf8)
            let marker = UUID().uuidString
            let started = FileManager.default.temporaryDirectory.appendingPathComponent("misbehaving-slow-\(marker)")
            let generate = Process()
            generate.executableURL = TideProcess.executable
            generate.arguments = ["generate", "--mcp", Self.server("mis", MCPTestServers.misbehaving("", marker: marker)), "--plugin", plugin.path,
                                  "--tool", "mis__slow", "--tool-choice", "required", "--mcp-timeout", "600", "--max-tokens", "60", "Wait."]
            let errors = Pipe()
            generate.standardOutput = FileHandle.nullDevice
            generate.standardError = errors
            try generate.run()
            // A reply waiting on a call of 30 s (under a timeout of 600 s), once the server has begun it.
            for _ in 0..<1200 where !FileManager.default.fileExists(atPath: started.path) { try await Task.sleep(for: .milliseconds(100)) }
            #expect(FileManager.default.fileExists(atPath: started.path), "the slow call began")
            let start = ContinuousClock.now
            kill(generate.processIdentifier, SIGINT)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            while generate.isRunning { try await Task.sleep(for: .milliseconds(50)) }
            #expect(generate.terminationStatus == 130, "\(stderr)")
            #expect(ContinuousClock.now - start < .seconds(20), "Ctrl-C does not wait for the server's answer: \(stderr)")
        }

        @Test func aServerThatFailsIsAClearErrorAndTideGoesOn() throws {
            let missing = try TideProcess.run(["generate", "--mcp", "gone: /nonexistent/mcp-server", "Hello"])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("the MCP server gone exited with status 127"), "\(missing.stderr)")
            let failing = try TideProcess.run(["generate", "--mcp", Self.server("bad", MCPTestServers.misbehaving("fail-at-start")), "Hello"])
            #expect(failing.status != 0 && failing.stderr.contains("failing at start, as asked"), "\(failing.stderr)")
            let silent = try TideProcess.run(["mcp", "list", "--mcp-timeout", "2", "--mcp", Self.server("quiet", MCPTestServers.misbehaving("silent"))])
            #expect(silent.status != 0 && silent.stderr.contains("did not start and list its tools within 2 s (--mcp-timeout)"), "\(silent.stderr)")

            // A server that dies mid-call fails that call; the reply goes on to its answer.
            let crash = try generate([], tool: "mis__crash")
            #expect(crash.status == 0, "\(crash.stderr)")
            #expect(Self.toolLines(crash.stderr).first?.contains("failed: error: the MCP server mis exited with status 7") == true, "\(crash.stderr)")
            let folder = try CommandLineTests.scratchFolder("mcp-slow")
            let plugin = folder.appendingPathComponent("policy.lua")
            try Self.policy.write(to: plugin, atomically: true, encoding: .utf8)
            let slow = try generate(["--mcp-timeout", "2", "--plugin", plugin.path], tool: "mis__slow")
            #expect(slow.status == 0, "\(slow.stderr)")
            #expect(Self.toolLines(slow.stderr).first?.contains("failed: error: the MCP server mis did not answer slow within 2 s") == true,
                    "\(slow.stderr)")
        }

        @Test func noServerOutlivesTide() async throws {
            let marker = UUID().uuidString
            let stubborn = Self.server("stubborn", MCPTestServers.misbehaving("stubborn", marker: marker))
            let result = try TideProcess.run(["generate", "--mcp", stubborn, "--max-tokens", "4", "Hello"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!MCPTestServers.isRunning(marker: marker), "the server that ignores SIGTERM ended with tide generate")

            // SIGTERM in the middle of a call, to a server started through a launcher (the shell is
            // Tide's child, the server its own): the whole group ends with Tide.
            let launched = UUID().uuidString
            let folder = try CommandLineTests.scratchFolder("mcp-sigterm")
            let plugin = folder.appendingPathComponent("policy.lua")
            try Self.policy.write(to: plugin, atomically: true, encoding: .utf8)
            let command = MCPTestServers.misbehaving("stubborn", marker: launched).map { "'\($0)'" }.joined(separator: " ")
            let generate = Process()
            generate.executableURL = TideProcess.executable
            generate.arguments = ["generate", "--mcp", "mis: sh -c \"\(command); true\"", "--plugin", plugin.path, "--tool", "mis__slow",
                                  "--tool-choice", "required", "--mcp-timeout", "120", "--max-tokens", "60", "Wait."]
            generate.standardOutput = FileHandle.nullDevice
            generate.standardError = FileHandle.nullDevice
            try generate.run()
            // The server has begun the slow call (tide's own command line names the marker too).
            let started = FileManager.default.temporaryDirectory.appendingPathComponent("misbehaving-slow-\(launched)")
            for _ in 0..<1200 where !FileManager.default.fileExists(atPath: started.path) { try await Task.sleep(for: .milliseconds(100)) }
            #expect(FileManager.default.fileExists(atPath: started.path), "the slow call began")
            generate.terminate()
            while generate.isRunning { try await Task.sleep(for: .milliseconds(50)) }
            #expect(generate.terminationStatus == 128 + SIGTERM, "\(generate.terminationStatus)")
            for _ in 0..<50 where MCPTestServers.isRunning(marker: launched) { try await Task.sleep(for: .milliseconds(100)) }
            #expect(!MCPTestServers.isRunning(marker: launched), "the launched server ended with tide generate's SIGTERM")

            let served = UUID().uuidString
            let server = try await TideServer(["--mcp", Self.server("stubborn", MCPTestServers.misbehaving("stubborn", marker: served))])
            #expect(MCPTestServers.isRunning(marker: served))
            #expect(server.terminate(waitingAtMost: .seconds(30)) != nil)
            #expect(!MCPTestServers.isRunning(marker: served), "the server that ignores SIGTERM ended with tide serve")
        }

        /// Ctrl-C while a server starts (no reply to stop yet) ends Tide as usual, and the server
        /// with it: servers start in sessions of their own, which the terminal's SIGINT does not
        /// reach, and one that outlives its input stays.
        @Test func ctrlCWhileAServerStartsEndsTheServerToo() async throws {
            let marker = UUID().uuidString
            for arguments in [["mcp", "list"], ["generate", "--max-tokens", "4"]] {
                let tide = Process()
                tide.executableURL = TideProcess.executable
                let command = arguments + ["--mcp-timeout", "600", "--mcp", Self.server("quiet", MCPTestServers.misbehaving("silent", marker: marker))]
                tide.arguments = command + (arguments[0] == "generate" ? ["Hello"] : [])
                tide.standardOutput = FileHandle.nullDevice
                tide.standardError = FileHandle.nullDevice
                try tide.run()
                // The server is running, and waits for ever (it never answers tools/list).
                for _ in 0..<600 where !MCPTestServers.isRunning(marker: marker) { try await Task.sleep(for: .milliseconds(50)) }
                #expect(MCPTestServers.isRunning(marker: marker), "the server started")
                try await Task.sleep(for: .milliseconds(300))
                kill(tide.processIdentifier, SIGINT)
                for _ in 0..<400 where tide.isRunning { try await Task.sleep(for: .milliseconds(50)) }
                #expect(!tide.isRunning && tide.terminationStatus == 130, "tide \(arguments[0]) ended by Ctrl-C: \(tide.terminationStatus)")
                if tide.isRunning { tide.terminate() }
                for _ in 0..<50 where MCPTestServers.isRunning(marker: marker) { try await Task.sleep(for: .milliseconds(100)) }
                #expect(!MCPTestServers.isRunning(marker: marker), "the server ended with tide \(arguments[0])'s Ctrl-C")
            }
        }

        /// The reference git server, kept to reading one repository by the policy plugin that
        /// docs/plugins.md shows (taken from there, its folder made this test's).
        @Test func theGitServerReadsOneRepositoryUnderThePolicyTheDocsShow() throws {
            let repository = try CommandLineTests.scratchFolder("mcp-git")
            for arguments in [["init", "-q"], ["add", "a.txt"], ["-c", "user.email=t@example.org", "-c", "user.name=T", "commit", "-q", "-m", "first"]] {
                if arguments.first == "add" { try "hello\n".write(to: repository.appendingPathComponent("a.txt"), atomically: true, encoding: .utf8) }
                let git = try TideProcess.run(["-C", repository.path] + arguments, program: URL(fileURLWithPath: "/usr/bin/git"))
                #expect(git.status == 0, "\(git.stderr)")
            }
            let docs = try String(contentsOf: HTMLReportTests.repository.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
            let start = try #require(docs.range(of: "-- read-only-git:"))
            let end = try #require(docs[start.lowerBound...].range(of: "\n```"))
            let plugin = repository.deletingLastPathComponent().appendingPathComponent("read-only-git-\(UUID().uuidString).lua")
            try String(docs[start.lowerBound..<end.lowerBound]).replacingOccurrences(of: "/srv/repo", with: repository.path)
                .write(to: plugin, atomically: true, encoding: .utf8)
            let git = Self.server("git", MCPTestServers.git(repository: repository.path))
            func ask(_ tool: String) throws -> String {
                let result = try TideProcess.run(["generate", "--mcp", git, "--plugin", plugin.path, "--tool", tool, "--tool-choice", "required",
                                                  "--max-tokens", "80", "Go ahead."])
                return Self.toolLines(result.stderr).first ?? result.stderr
            }
            let status = try ask("git__git_status")
            #expect(status.contains("\"repo_path\":\"\(repository.path)\"") && status.contains("→ Repository status:")
                    && status.contains("nothing to commit"), "\(status)")
            let commit = try ask("git__git_commit")
            #expect(commit.contains("failed: error: read-only-git refused this call: git__git_commit is not a read"), "\(commit)")
        }

        @Test func aPresetNamesItsServers() throws {
            let environment = ["XDG_CONFIG_HOME": try CommandLineTests.scratchFolder("mcp-preset").path]
            let created = try TideProcess.run(["models", "create", "echoing", "--from", "smollm2-135m-instruct", "--mcp", Self.misbehaving,
                                               "--temperature", "0"], environment: environment)
            #expect(created.status == 0, "\(created.stderr)")
            let shown = try TideProcess.run(["models", "show", "echoing"], environment: environment)
            #expect(shown.stdout.contains("mcp servers:   \(Self.misbehaving)"), "\(shown.stdout)")
            // The preset's server, and the same one given again on the command line, start once.
            let result = try TideProcess.run(["generate", "--model", "echoing", "--mcp", Self.misbehaving, "--tool", "mis__add",
                                              "--tool-choice", "required", "--max-tokens", "60", "Add two numbers."], environment: environment)
            #expect(Self.toolLines(result.stderr).first?.hasPrefix("tool mis__add ") == true, "\(result.stderr)")
            let bad = try TideProcess.run(["models", "create", "broken", "--from", "smollm2-135m-instruct", "--mcp", "web: https://x.example/mcp"],
                                          environment: environment)
            #expect(bad.status != 0 && bad.stderr.contains("servers over HTTP are not supported"), "\(bad.stderr)")
        }

        @Test func chatAndRunOfferTheServersTools() throws {
            let chat = try TideProcess.run(["chat", "--mcp", Self.server("time", MCPTestServers.time)], stdin: "/tools\n")
            #expect(chat.stdout.contains("on  time__get_current_time (mcp:time) — Get current time in a specific timezone")
                    || chat.stderr.contains("on  time__get_current_time (mcp:time) — Get current time in a specific timezone"),
                    "\(chat.stdout)\n\(chat.stderr)")

            let folder = try CommandLineTests.scratchFolder("mcp-run")
            let script = folder.appendingPathComponent("echo.tide")
            try "@temperature 0\n@max-tokens 120\n@tool-choice mis__echo\nuser: Echo something.\nexpect: tool-call mis__echo\n"
                .write(to: script, atomically: true, encoding: .utf8)
            let out = folder.appendingPathComponent("out")
            let run = try TideProcess.run(["run", "--mcp", Self.misbehaving, "--out", out.path, script.path])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("PASS expect: tool-call mis__echo"), "\(run.stdout)")
            let transcript = try String(contentsOf: out.appendingPathComponent("echo.tide"), encoding: .utf8)
            #expect(transcript.contains("tool-call: ") && transcript.contains("\"name\": \"mis__echo\""), "\(transcript)")
            #expect(transcript.contains("\ntool: "))
            // The transcript replays: its recorded round and reply checked by teacher forcing.
            let replay = try TideProcess.run(["run", "--mcp", Self.misbehaving, out.appendingPathComponent("echo.tide").path])
            #expect(replay.status == 0 && replay.stdout.contains("PASS expect: tool-call mis__echo"), "\(replay.stdout)\n\(replay.stderr)")
        }
    }
}
