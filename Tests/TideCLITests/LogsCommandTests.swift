import Foundation
import Testing
import TideTestSupport

/// The conversation log as users meet it: every command's exchanges kept, listed, searched,
/// exported and replayed; switched off; broken files and killed processes survived.
extension CommandLineTests {
    @Suite struct LogsCommandTests {
        /// A data folder of its own (so its log is the test's alone), as an environment.
        func ownLog(_ label: String) throws -> (folder: URL, environment: [String: String]) {
            let folder = try CommandLineTests.scratchFolder("logs-\(label)")
            return (folder, ["XDG_DATA_HOME": folder.path, "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path])
        }

        /// The conversations `tide logs list --json` prints.
        func listed(_ environment: [String: String], _ arguments: [String] = []) throws -> [[String: Any]] {
            let result = try TideProcess.run(["logs", "list", "--json", "-n", "100000"] + arguments, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        /// The conversation `id` as `tide logs show --json` prints it.
        func shown(_ id: Int, _ environment: [String: String]) throws -> [String: Any] {
            let result = try TideProcess.run(["logs", "show", "\(id)", "--json"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }

        /// Every source is logged under its name, and every logged conversation exports to a script
        /// that `tide run` replays, its recorded replies confirmed.
        @Test func everySourceIsLoggedAndEveryExportReplays() async throws {
            let (folder, environment) = try ownLog("sources")
            let generated = try TideProcess.run(["generate", "--temperature", "0", "--max-tokens", "16", "Name a river."],
                                                environment: environment)
            #expect(generated.status == 0, "\(generated.stderr)")
            let chat = try TideProcess.run(["chat", "--temperature", "0", "--max-tokens", "16", "--plugin", "stop-after-sentences sentences=1"],
                                           stdin: "My name is Ada.\nWhat is my name?\n", environment: environment)
            #expect(chat.status == 0, "\(chat.stderr)")
            let script = folder.appendingPathComponent("short.tide")
            try "@temperature 0\n@max-tokens 12\n\nuser: What is the capital of France?\nexpect: contains Paris\n"
                .write(to: script, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", script.path], environment: environment)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            let server = try await TideServer(["--log"], environment: environment)
            _ = try server.python("""
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
                chat = client.chat.completions.create(model="smollm2-135m-instruct", temperature=0, max_tokens=12,
                    messages=[{"role": "user", "content": "Name a colour."}])
                text = client.completions.create(model="smollm2-135m-instruct", temperature=0, max_tokens=12, prompt="Once upon a time")
                print(json.dumps([chat.choices[0].message.content, text.choices[0].text]))
                """)
            _ = server.terminate(waitingAtMost: .seconds(10))

            let conversations = try listed(environment)
            #expect(Set(conversations.compactMap { $0["source"] as? String }) == ["generate", "chat", "run", "serve"], "\(conversations)")
            #expect(conversations.count == 5)
            let chatted = try #require(conversations.first { $0["source"] as? String == "chat" })
            #expect(chatted["replies"] as? Int == 2 && chatted["first_message"] as? String == "My name is Ada.")
            let ran = try #require(conversations.first { $0["source"] as? String == "run" })
            #expect(ran["origin"] as? String == script.standardizedFileURL.path)
            let completion = try #require(conversations.first { $0["origin"] as? String == "/v1/completions" })
            #expect(completion["first_message"] as? String == "Once upon a time")

            let found = try TideProcess.run(["logs", "search", "Ada", "--json"], environment: environment)
            let hits = found.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(hits.contains { ($0["excerpt"] as? String)?.contains("**Ada**") == true && $0["conversation"] as? Int == chatted["id"] as? Int },
                    "\(found.stdout)")

            for conversation in conversations {
                let id = try #require(conversation["id"] as? Int)
                let file = folder.appendingPathComponent("export-\(id).tide")
                let exported = try TideProcess.run(["logs", "export", "\(id)", "-o", file.path], environment: environment)
                #expect(exported.status == 0, "\(exported.stderr)")
                let replay = try TideProcess.run(["run", "--no-log", file.path], environment: environment)
                #expect(replay.status == 0, "\(conversation): \(replay.stdout)\(replay.stderr)")
                let replies = conversation["replies"] as? Int ?? 0
                #expect(replay.stderr.contains("recorded replies: \(replies) confirmed by teacher forcing")
                        || replay.stdout.contains("recorded replies: \(replies) confirmed by teacher forcing"),
                        "\(conversation): \(replay.stdout)\(replay.stderr)\n\((try? String(contentsOf: file, encoding: .utf8)) ?? "")")
            }
            #expect(try listed(environment).count == 5, "--no-log keeps the replays out")
        }
    }
}
