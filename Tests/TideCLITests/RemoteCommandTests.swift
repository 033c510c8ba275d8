import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `--remote` and remote registry entries on `generate`, `chat` and `run`, against
    /// llama-cpp-python's server on loopback (and a server that fails on request).
    @Suite struct RemoteCommandTests {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tide-remote-\(UUID().uuidString)")

        @Test func generateAsksTheServerForItsModelAndStreamsTheReply() async throws {
            let server = try await LlamaCppPythonServer()
            let result = try TideProcess.run(["generate", "--remote", "127.0.0.1:\(server.port)", "--temperature", "0",
                                              "--max-tokens", "32", "--stats", "What is the capital of France?"])
            #expect(result.status == 0, "\(result.stderr)")
            // The server's words, whichever its build picks: a reply that ends as any reply may.
            #expect(!result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
            let end = try #require(PrintedEnd(result.stderr), "\(result.stderr)")
            #expect(end.isWithin(32), "\(end)")

            let preferring = try TideProcess.run(["generate", "--remote", server.url.absoluteString, "--plugin", "prefer-words words=Paris",
                                                  "What is the capital of France?"])
            #expect(preferring.status == 1)
            #expect(preferring.stderr.contains("plugin prefer-words defines on_logits, which needs the model's scores, but smollm2 samples on its server"))
            #expect(preferring.stdout.isEmpty)
            let banned = try TideProcess.run(["generate", "--remote", server.url.absoluteString, "--plugin", "ban-phrases phrases=Paris",
                                              "What is the capital of France?"])
            #expect(banned.status == 1)
            #expect(banned.stderr.contains("plugin ban-phrases takes back text (it declares a rewind window), which needs the model's cache, "
                                           + "but smollm2 generates on its server"), "\(banned.stderr)")
            #expect(banned.stdout.isEmpty)

            let wrongModel = try TideProcess.run(["generate", "--remote", server.url.absoluteString + "/v1", "--model", "nope",
                                                  "--temperature", "0", "Hi"])
            // llama-cpp-python answers any model name with its one model; the request went through /v1 once.
            #expect(wrongModel.status == 0, "\(wrongModel.stderr)")
        }

        @Test func aChatSavedFromARemoteModelReplaysThere() async throws {
            let server = try await LlamaCppPythonServer()
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let saved = scratch.appendingPathComponent("remote.tide")
            let chat = try TideProcess.run(["chat", "--remote", server.url.absoluteString, "--temperature", "0", "--max-tokens", "40",
                                            "--plugin", "stop-after-sentences sentences=1"],
                                           stdin: "What is the capital of France?\nWhat is 2+2?\n/show\n/save \(saved.path)\n")
            #expect(chat.status == 0, "\(chat.stderr)")
            #expect(chat.stdout.contains("template: the server's"))
            #expect(chat.stdout.contains("conversation: 2 exchanges"))
            #expect(chat.stdout.contains("replay with: tide run --remote \(server.url.absoluteString) \(saved.path)"))
            let script = try String(contentsOf: saved, encoding: .utf8)
            #expect(script.contains("@model smollm2\n"))
            #expect(script.contains("replay it with: tide run --remote \(server.url.absoluteString) FILE\n"))
            #expect(script.contains("@plugin stop-after-sentences sentences=1"))

            let replay = try TideProcess.run(["run", "--remote", server.url.absoluteString, "--json", saved.path])
            #expect(replay.status == 0, "\(replay.stderr)")
            let report = try #require(replay.jsonCases.first)
            let replies = try #require(report["replies"] as? [[String: Any]]).compactMap { $0["reply"] as? String }
            #expect(replies.count == 2)
            for reply in replies {
                #expect(script.contains("assistant: \(reply)\n@generated"), "regenerated as recorded: \(reply)")
            }
            // A model on a server samples there: its recorded replies are generated, and the report says why.
            let forcing = try #require(report["replies"] as? [[String: Any]]).map { $0["teacher_forcing"] as? [String: String] }
            #expect(forcing == Array(repeating: ["outcome": "skipped", "reason": "the model samples on its server"], count: 2))
            #expect(replay.stderr.contains("recorded replies: 2 regenerated whole"))

            let refused = try TideProcess.run(["chat", "--remote", server.url.absoluteString, "--plugin", "prefer-words words=x"],
                                              stdin: "Hi\n")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("plugin prefer-words defines on_logits"))
        }

        @Test func aRemoteEntryOfTheUserRegistry() async throws {
            let server = try await LlamaCppPythonServer()
            let config = scratch.appendingPathComponent("config")
            try FileManager.default.createDirectory(at: config.appendingPathComponent("tide"), withIntermediateDirectories: true)
            let registry = config.appendingPathComponent("tide/models.json")
            try Data("""
                {"models": [{"name": "lab", "kind": "remote", "url": "\(server.url.absoluteString)/v1", "model": "smollm2",
                             "api_key_env": "LAB_KEY", "context_length": 2048, "system_prompt": "You are a terse assistant."}]}
                """.utf8).write(to: registry)
            let environment = ["XDG_CONFIG_HOME": config.path, "LAB_KEY": "secret-lab-key"]
            let listed = try TideProcess.run(["models", "list"], environment: environment)
            #expect(listed.status == 0)
            #expect(listed.stdout.contains("lab"))
            #expect(listed.stdout.contains("smollm2 on \(server.url.absoluteString)"))
            #expect(!listed.stdout.contains("secret-lab-key"))

            let shown = try TideProcess.run(["chat", "--model", "lab", "--temperature", "0"],
                                            stdin: "What is the capital of France?\n/show\n", environment: environment)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("conversation: 1 exchange"))
            #expect(shown.stdout.contains("context: "))
            #expect(shown.stdout.contains("of 2048 tokens used"))
            #expect(shown.stdout.contains("system: You are a terse assistant."))
            #expect(shown.stdout.contains("model: smollm2 (lab on \(server.url.absoluteString))"))
            #expect(!(shown.stdout + shown.stderr).contains("secret-lab-key"))

            try Data(#"{"models": [{"name": "lab", "kind": "cloud", "url": "http://x"}]}"#.utf8).write(to: registry)
            let broken = try TideProcess.run(["generate", "--model", "lab", "Hi"], environment: environment)
            #expect(broken.status == 1)
            #expect(broken.stderr.contains("\(registry.path): at models[0].kind: unknown kind 'cloud'"), "\(broken.stderr)")

            try Data(#"{"models": [{"name": "meta-llama/Llama-3.1-8B", "kind": "remote", "url": "http://x"}]}"#.utf8).write(to: registry)
            let pathLike = try TideProcess.run(["models", "list"], environment: environment)
            #expect(pathLike.status == 1)
            #expect(pathLike.stderr.contains("'meta-llama/Llama-3.1-8B' reads as a file path"), "\(pathLike.stderr)")
        }

        @Test func aServerThatFailsMidReply() async throws {
            let server = try await MisbehavingServer()
            let stalled = try TideProcess.run(["generate", "--remote", "127.0.0.1:\(server.port)", "--remote-timeout", "1", "stall"])
            #expect(stalled.status == 1)
            #expect(stalled.stdout.hasPrefix("Hello"), "the partial reply is printed")
            #expect(stalled.stderr.contains("\(server.completions) sent nothing for 1 s; giving up: wait longer or check the server (--remote-timeout)"),
                    "\(stalled.stderr)")

            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let banning = scratch.appendingPathComponent("banning.tide")
            try "@plugin ban-phrases phrases=x\nuser: Hi\n".write(to: banning, atomically: true, encoding: .utf8)
            let chat = try TideProcess.run(["chat", "--remote", server.url.absoluteString],
                                           stdin: "malformed\nHi\n/open \(banning.path)\n/show\n")
            #expect(chat.status == 0, "\(chat.stderr)")
            #expect(chat.stderr.contains("plugin ban-phrases takes back text"), "/open refuses it: \(chat.stderr)")
            #expect(chat.stdout.contains("plugins: none"))
            #expect(chat.stderr.contains("\(server.completions) sent a stream Tide cannot read: not a chat-completion chunk"))
            #expect(chat.stdout.contains("Hello there."), "the next turn is answered")
            #expect(chat.stdout.contains("conversation: 2 exchanges"), "the partial reply is kept")
            #expect(chat.stdout.contains("model: stub (on \(server.url.absoluteString))"))

            try FileManager.default.createDirectory(at: scratch.appendingPathComponent("tide"), withIntermediateDirectories: true)
            let registry = scratch.appendingPathComponent("tide/models.json")
            try Data(#"{"models": [{"name": "flaky", "kind": "remote", "url": "\#(server.url.absoluteString)", "model": "stub", "timeout": 1}]}"#.utf8)
                .write(to: registry)
            let silent = try TideProcess.run(["generate", "--model", "flaky", "silent"], environment: ["XDG_CONFIG_HOME": scratch.path])
            #expect(silent.status == 1)
            #expect(silent.stderr.contains("sent nothing for 1 s"), "the entry's timeout: \(silent.stderr)")

            try Data(#"{"models": [{"name": "flaky", "kind": "remote", "url": "http://x", "timeout": 0}]}"#.utf8).write(to: registry)
            let broken = try TideProcess.run(["generate", "--model", "flaky", "Hi"], environment: ["XDG_CONFIG_HOME": scratch.path])
            #expect(broken.stderr.contains("\(registry.path): at models[0].timeout: timeout must be from 1 to 86400 seconds, not 0"),
                    "\(broken.stderr)")
            // A mistake in the registry does not stop the built-in models.
            let bundled = try TideProcess.run(["generate", "--max-tokens", "3", "Hi"], environment: ["XDG_CONFIG_HOME": scratch.path])
            #expect(bundled.status == 0, "\(bundled.stderr)")
        }

        @Test(arguments: [
            (["--remote", "ftp://host"], "--remote: 'ftp://host' is not a server URL", Int32(2)),
            (["--remote", "http://127.0.0.1:9", "--template", "chatml"], "--template does not apply to --remote", 2),
            (["--remote", "http://127.0.0.1:9", "--remote-timeout", "0"], "--remote-timeout must be from 1 to 86400 seconds, not 0", 2),
            (["--remote", "http://127.0.0.1:9"], "cannot reach http://127.0.0.1:9/v1/models: Connection refused", 1),
            (["--remote", "http://127.0.0.1:9", "--model", "m"], "cannot reach http://127.0.0.1:9/v1/chat/completions: Connection refused", 1),
        ])
        func badRemotesAreSaidPlainly(arguments: [String], message: String, status: Int32) throws {
            let result = try TideProcess.run(["generate"] + arguments + ["Hi"])
            #expect(result.status == status)
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }
}
