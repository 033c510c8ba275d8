import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `--trace-hooks` and the plugins' costs on every command that generates, on the real model
    /// with its words made certain by a grammar: each hook call a JSON line, positions in order,
    /// the stop where the plugin made it, and a failed check pointing to the trace.
    @Suite struct HookTraceCommandTests {
        /// A folder with `words.gbnf`, a grammar that holds the reply to "one two three four five six".
        func folder(_ label: String) throws -> URL {
            let folder = try CommandLineTests.scratchFolder(label)
            try "root ::= \"one two three four five six\"\n".write(to: folder.appendingPathComponent("words.gbnf"),
                                                                     atomically: true, encoding: .utf8)
            return folder
        }

        /// The records of a JSON Lines trace.
        func records(_ url: URL) throws -> [[String: Any]] {
            try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
            }
        }

        @Test func generateTracesEveryCallAndShowsThePluginsCosts() throws {
            let folder = try folder("trace-generate")
            let trace = folder.appendingPathComponent("t.jsonl")
            let result = try TideProcess.run(["generate", "--grammar", "words.gbnf", "--plugin", "stop-on-pattern pattern=four",
                                              "--max-tokens", "40", "--stats", "--trace-hooks=\(trace.path)", "Count."],
                                             workingDirectory: folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("one two three four"))
            let stops = try records(trace).filter { $0["hook"] as? String == "should_stop" }
            #expect(!stops.isEmpty)
            #expect(stops.map { $0["position"] as? Int } == Array(0..<stops.count), "one call a token, in order")
            #expect(stops.allSatisfy { $0["plugin"] as? String == "stop-on-pattern" && ($0["instructions"] as? Int ?? 0) > 0 })
            #expect(stops.dropLast().allSatisfy { $0["outcome"] as? String == "proceed" })
            #expect(stops.last?["outcome"] as? String == "stop: matched four")
            #expect((stops.last?["given"] as? String)?.contains("four") == true)
            let table = result.stderr.split(separator: "\n").map(String.init)
            #expect(table.contains { $0.contains("plugin") && $0.contains("instructions") && $0.contains("share") }, "\(result.stderr)")
            #expect(table.contains { $0.contains("stop-on-pattern") && $0.contains("should_stop  \(stops.count) ") }, "\(result.stderr)")
        }

        @Test func aRunKeepsEachTraceBesideItsTranscriptAndAFailedCheckPointsToIt() throws {
            let folder = try folder("trace-run")
            try """
                @grammar words.gbnf
                @plugin stop-on-pattern pattern=four
                user: Count.
                expect: contains "six"
                """.write(to: folder.appendingPathComponent("counting.tide"), atomically: true, encoding: .utf8)
            try "user: Hi.\n".write(to: folder.appendingPathComponent("plain.tide"), atomically: true, encoding: .utf8)
            let out = folder.appendingPathComponent("out")
            let run = try TideProcess.run(["run", "--out", out.path, "--trace-hooks", "counting.tide", "plain.tide"], workingDirectory: folder)
            #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
            let trace = out.appendingPathComponent("counting.trace.jsonl")
            #expect(run.stdout.contains("FAIL expect: contains \"six\""), "\(run.stdout)")
            #expect(run.stdout.contains("— the stop came from stop-on-pattern after "), "\(run.stdout)")
            #expect(run.stdout.contains("(matched four): see the trace in \(trace.path)"), "\(run.stdout)")
            let stops = try records(trace)
            #expect(stops.last?["outcome"] as? String == "stop: matched four")
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("plain.trace.jsonl").path),
                    "a case without plugins leaves no trace")

            let json = try TideProcess.run(["run", "--json", "--no-cache", "counting.tide"], workingDirectory: folder)
            let line = try #require(json.stdout.split(separator: "\n").first, "\(json.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let reply = try #require((object["replies"] as? [[String: Any]])?.first)
            let costs = try #require(reply["plugin_costs"] as? [[String: Any]])
            #expect(costs.count == 1)
            #expect(costs.first?["plugin"] as? String == "stop-on-pattern" && costs.first?["hook"] as? String == "should_stop")
            #expect(costs.first?["calls"] as? Int == reply["tokens"] as? Int)
            #expect((costs.first?["instructions_per_token"] as? Double ?? 0) > 0)
            #expect(reply["plugin_note"] as? String == "the stop came from stop-on-pattern after \(reply["tokens"] as? Int ?? -1) tokens (matched four)")
        }

        @Test func theChatTracesIntoItselfShowsRewindsAndTheCosts() throws {
            let folder = try folder("trace-chat")
            let chat = try TideProcess.run(["chat", "--grammar", "words.gbnf", "--plugin", "ban-phrases phrases=three", "--max-tokens", "40"],
                                           stdin: "/trace on\nCount.\n/stats\n/trace off\n/trace\n", workingDirectory: folder)
            #expect(chat.status == 0, "\(chat.stderr)")
            #expect(chat.stdout.contains("tracing hook calls into the chat"))
            // The grammar holds the words, not how they split into tokens: the first call's text is not asserted.
            #expect(chat.stdout.contains("ban-phrases should_stop #0 \""), "\(chat.stdout)")
            #expect(chat.stdout.contains("→ proceed ("), "\(chat.stdout)")
            #expect(chat.stdout.contains("⟲ ban-phrases took back"), "\(chat.stdout)")
            #expect(chat.stdout.contains("ban-phrases  should_stop"), "/stats shows the costs: \(chat.stdout)")
            #expect(chat.stdout.contains("hook calls are not traced (/trace on starts)"))
        }

        @Test func theServerTracesEachReplyUnderItsID() async throws {
            let folder = try CommandLineTests.scratchFolder("trace-serve")
            let trace = folder.appendingPathComponent("serve.jsonl")
            let server = try await TideServer(["--plugin", "word-budget words=1000", "--trace-hooks=\(trace.path)"])
            let (status, json) = try await server.post(#"{"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 6}"#)
            #expect(status == 200)
            let id = try #require(json["id"] as? String)
            let tokens = try #require((json["usage"] as? [String: Any])?["completion_tokens"] as? Int)
            let stops = try records(trace).filter { $0["hook"] as? String == "should_stop" }
            #expect(stops.count == tokens)
            #expect(stops.allSatisfy { $0["source"] as? String == id && $0["plugin"] as? String == "word-budget" })
            _ = server.terminate(waitingAtMost: .seconds(10))
        }
    }
}
