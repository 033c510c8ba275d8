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
            try "@temperature 0\n@max-tokens 12\n@plugin \(ScratchPlugins.capitalsFile)\n\nuser: What is the capital of France?\nexpect: contains Paris\n"
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

extension CommandLineTests.LogsCommandTests {
    /// `--no-log`, `TIDE_NO_LOG`, `tide logs off` and `tide serve` without `--log` keep exchanges
    /// out; `tide logs on` lets them in again; `status` says which.
    @Test func loggingCanBeTurnedOff() async throws {
        let (_, environment) = try ownLog("off")
        func generate(_ extra: [String] = [], environment more: [String: String] = [:]) throws {
            let result = try TideProcess.run(["generate", "--max-tokens", "4"] + extra + ["Hi"], environment: environment.merging(more) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
        }
        try generate(["--no-log"])
        try generate(environment: ["TIDE_NO_LOG": "1"])
        #expect(try listed(environment).isEmpty)
        let off = try TideProcess.run(["logs", "off"], environment: environment)
        #expect(off.status == 0 && off.stdout.contains("Logging is off"))
        try generate()
        let status = try TideProcess.run(["logs", "status"], environment: environment)
        #expect(status.stdout.contains("Logging is off: tide logs off is in force"), "\(status.stdout)")
        #expect(try listed(environment).isEmpty)
        _ = try TideProcess.run(["logs", "on"], environment: environment)
        try generate()
        try generate(environment: ["TIDE_NO_LOG": "0"])
        #expect(try listed(environment).count == 2)
        let on = try TideProcess.run(["logs", "status"], environment: environment)
        #expect(on.stdout.contains("Logging is on.") && on.stdout.contains("2 conversations, 6 messages"), "\(on.stdout)")

        let server = try await TideServer(environment: environment)
        let answer = try await server.post(#"{"model": "m", "max_tokens": 4, "messages": [{"role": "user", "content": "Hi"}]}"#)
        #expect(answer.status == 200)
        _ = server.terminate(waitingAtMost: .seconds(10))
        #expect(try listed(environment).count == 2, "tide serve logs only with --log")
    }

    /// A file at the log's path that is not a log: one warning, the reply as usual, the file kept.
    @Test func aCorruptLogWarnsAndTheReplyGoesOn() throws {
        let (folder, environment) = try ownLog("corrupt")
        let path = folder.appendingPathComponent("tide/logs.db")
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: path)
        let result = try TideProcess.run(["generate", "--temperature", "0", "--max-tokens", "12", "--plugin", ScratchPlugins.capitalsFile,
                                          "What is the capital of France?"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stdout == "The capital of France is Paris.\n", "\(result.stdout)")
        #expect(result.stderr.components(separatedBy: "warning:").count == 2, "one warning: \(result.stderr)")
        #expect(result.stderr.contains("is not a Tide log, or is damaged; it is left as it is: move it aside (mv \(path.path) \(path.path).bad)"),
                "\(result.stderr)")
        #expect(try Data(contentsOf: path) == garbage)
        let list = try TideProcess.run(["logs"], environment: environment)
        #expect(list.status == 1 && list.stderr.contains("is not a Tide log"), "\(list.stderr)")
    }

    /// Two chats logging at once keep their own conversations; a chat killed part-way through a
    /// reply leaves a log that opens and holds every reply that had finished.
    @Test func concurrentChatsAndAKilledOne() async throws {
        let (_, environment) = try ownLog("concurrent")
        let questions = ["Name a fruit.", "Name a colour.", "Name a river."]
        let results = await withTaskGroup(of: TideProcess.Result?.self) { group in
            for index in 0..<2 {
                group.addTask {
                    // One thread each: two processes of two threads on two cores wait on each other's spinning threads.
                    try? TideProcess.run(["chat", "--threads", "1", "--temperature", "0", "--max-tokens", "12"],
                                         stdin: questions.map { "\($0) (\(index))" }.joined(separator: "\n") + "\n", environment: environment)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0?.status == 0 })
        let chats = try listed(environment)
        #expect(chats.count == 2 && chats.allSatisfy { $0["replies"] as? Int == 3 }, "\(chats)")
        #expect(Set(chats.compactMap { $0["first_message"] as? String }) == ["Name a fruit. (0)", "Name a fruit. (1)"])

        // A chat that is killed while it streams its second reply, which a plugin slows to 200 ms a
        // token so that it cannot end first.
        let slow = try CommandLineTests.scratchFolder("slow").appendingPathComponent("slow.lua")
        try """
            return { name = 'slow', on_token = function(token)
              local start = os.clock()
              while os.clock() - start < 0.2 do end
            end }
            """.write(to: slow, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = TideProcess.executable
        process.arguments = ["chat", "--temperature", "0", "--max-tokens", "8", "--plugin", slow.path, "--plugin-instructions", "1000000000"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("Name a city.\n".utf8))
        let deadline = ContinuousClock.now + .seconds(120)
        while try listed(environment).count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
        input.fileHandleForWriting.write(Data("/set max-tokens 3000\nTell me a very long story about the sea, in many chapters.\n".utf8))
        try await Task.sleep(for: .seconds(1))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let after = try listed(environment)
        #expect(after.count == 3)
        let killed = try #require(after.first)
        #expect(killed["first_message"] as? String == "Name a city.")
        #expect(killed["replies"] as? Int == 1, "the finished reply is kept; the one cut by the kill was never written")
        let next = try TideProcess.run(["generate", "--max-tokens", "4", "Hi"], environment: environment)
        #expect(next.status == 0 && !next.stderr.contains("warning"), "the log takes writes after the kill: \(next.stderr)")
        #expect(try listed(environment).count == 4)
    }

    /// `tide serve --log` under eight streaming clients, four requests each: every request is logged,
    /// none lost or mixed with another.
    @Test func serveLogsEveryRequestOfEightClients() async throws {
        let (folder, environment) = try ownLog("serve")
        let server = try await TideServer(["--log", "--parallel", "8", "--max-tokens", "24"], environment: environment)
        let sent = try #require(try server.python("""
            import json, sys, threading, time, openai
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            topics = ["the sea", "a river", "the moon", "a forest", "the wind", "a city", "the rain", "a mountain"]
            exchanges, lock = [], threading.Lock()
            def client_loop(index):
                for count in range(4):
                    prompt = f"Client {index}, question {count}: say something about {topics[(index + count) % 8]}."
                    pieces = []
                    for chunk in client.chat.completions.create(model="smollm2-135m-instruct", stream=True,
                            messages=[{"role": "user", "content": prompt}]):
                        for choice in chunk.choices:
                            if choice.delta.content: pieces.append(choice.delta.content)
                    with lock: exchanges.append([prompt, "".join(pieces)])
            threads = [threading.Thread(target=client_loop, args=(index,)) for index in range(8)]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            print(json.dumps(exchanges))
            """) as? [[String]])
        #expect(server.terminate(waitingAtMost: .seconds(20)) != nil)
        #expect(sent.count == 32, "four requests from each client, however long they take here")
        let database = folder.appendingPathComponent("tide/logs.db").path
        let logged = try #require(try TideProcess.run(["-c", """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            rows = db.execute("SELECT c.id, m.role, m.content FROM conversation c JOIN message m ON m.conversation_id = c.id "
                              "WHERE c.source = 'serve' ORDER BY c.id, m.position").fetchall()
            conversations = {}
            for id, role, content in rows: conversations.setdefault(id, []).append([role, content])
            print(json.dumps([[m[1] for m in messages if m[0] != "system"] for messages in conversations.values()]))
            """, database], program: LlamaCppPythonServer.python).stdout.data(using: .utf8).flatMap {
                try JSONSerialization.jsonObject(with: $0) as? [[String]] })
        #expect(logged.count == sent.count, "every request logged once")
        #expect(logged.map { $0.joined(separator: "\u{1}") }.sorted() == sent.map { $0.joined(separator: "\u{1}") }.sorted(),
                "each logged conversation is one client's prompt and the reply it received")
    }
}

extension CommandLineTests.LogsCommandTests {
    /// `--continue` and `--resume` go on with a logged conversation: its messages, system prompt,
    /// parameters and plugins come back, and the new exchanges join the same record.
    @Test func aLoggedConversationGoesOn() throws {
        let (_, environment) = try ownLog("resume")
        let none = try TideProcess.run(["generate", "-c", "Hello"], environment: environment)
        #expect(none.status == 1 && none.stderr.contains("the log holds no generate conversation to continue"), "\(none.stderr)")
        let missing = try TideProcess.run(["chat", "--resume", "42"], stdin: "Hi\n", environment: environment)
        #expect(missing.status == 1 && missing.stderr.contains("the log holds no conversation 42"), "\(missing.stderr)")

        let first = try TideProcess.run(["chat", "--temperature", "0", "--max-tokens", "24", "--system", "You are terse.",
                                         "--plugin", "stop-after-sentences sentences=1"],
                                        stdin: "My name is Ada.\n", environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let resumed = try TideProcess.run(["chat", "--continue", "--max-tokens", "20"], stdin: "What is my name?\n/show\n",
                                          environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let screen = resumed.stdout + resumed.stderr
        #expect(screen.contains("resumed conversation 1: 1 exchange; last message: My name is Ada."), "\(screen)")
        #expect(screen.contains("system: You are terse."), "\(screen)")
        #expect(screen.contains("temperature 0 ·") && screen.contains("max-tokens 20"), "the last reply's parameters, under the options given: \(screen)")
        #expect(screen.contains("plugins: stop-after-sentences sentences=1"), "\(screen)")
        #expect(screen.contains("conversation: 2 exchanges"), "\(screen)")
        let conversations = try listed(environment)
        #expect(conversations.count == 1 && conversations.first?["replies"] as? Int == 2, "\(conversations)")

        let generated = try TideProcess.run(["generate", "--temperature", "0", "--max-tokens", "12", "Name a river."], environment: environment)
        #expect(generated.status == 0)
        let followUp = try TideProcess.run(["generate", "-c", "Name another."], environment: environment)
        #expect(followUp.status == 0, "\(followUp.stderr)")
        let after = try listed(environment)
        #expect(after.count == 2)
        let newest = try #require(after.first?["id"] as? Int)
        let river = try shown(newest, environment)
        let messages = try #require(river["messages"] as? [[String: Any]])
        #expect(messages.compactMap { $0["content"] as? String }.filter { ["Name a river.", "Name another."].contains($0) }.count == 2)
        let replies = messages.compactMap { $0["reply"] as? [String: Any] }
        #expect(replies.count == 2)
        #expect(replies.allSatisfy { ($0["parameters"] as? [String: Any])?["max_tokens"] as? Int == 12 },
                "the follow-up kept the first reply's parameters: \(replies)")
    }
}
