import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide run`'s reply cache on the real model: a rerun of an unchanged script gives every
    /// reply from the cache, a rerun whose last turn changed generates that turn alone, and a
    /// cache that is damaged or cannot be written costs nothing but the reuse. The assertions hold
    /// for any reply the model gives: the reruns are compared with the first run, whatever it said.
    @Suite struct ReplyCacheCommandTests {
        /// A two-turn greedy script in a folder of its own, and the environment of a cache of its own.
        func script() throws -> (script: URL, environment: [String: String]) {
            let folder = try CommandLineTests.scratchFolder("reply-cache")
            let script = folder.appendingPathComponent("two.tide")
            try "@temperature 0\n@max-tokens 12\nuser: Name a colour.\nexpect: length >= 0\nuser: Name a fruit.\nexpect: length >= 0\n"
                .write(to: script, atomically: true, encoding: .utf8)
            return (script, ["TIDE_CACHE_DIR": folder.appendingPathComponent("cache").path])
        }

        /// The replies of a `--json` run, in order, and how many came from the cache.
        func replies(_ result: TideProcess.Result) -> (texts: [String], cached: Int?) {
            let texts = result.jsonCases.flatMap { ($0["replies"] as? [[String: Any]] ?? []).compactMap { $0["reply"] as? String } }
            return (texts, result.jsonSummary?["cached_replies"] as? Int)
        }

        @Test func anUnchangedRerunGeneratesNothingAndAChangedLastTurnGeneratesThatTurnAlone() throws {
            let (script, environment) = try script()
            let first = try TideProcess.run(["run", "--json", script.path], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let made = replies(first)
            #expect(made.texts.count == 2)
            #expect(made.cached == 0)

            let again = try TideProcess.run(["run", "--json", script.path], environment: environment)
            #expect(replies(again).texts == made.texts)
            #expect(replies(again).cached == 2)
            let text = try TideProcess.run(["run", script.path], environment: environment)
            #expect(text.stdout.contains("replies: 2 of 2 from the cache"), "\(text.stdout)")

            try String(contentsOf: script, encoding: .utf8).replacingOccurrences(of: "Name a fruit.", with: "Name a tree.")
                .write(to: script, atomically: true, encoding: .utf8)
            let edited = try TideProcess.run(["run", "--json", script.path], environment: environment)
            #expect(replies(edited).texts.first == made.texts.first)
            #expect(replies(edited).cached == 1, "the first turn came from the cache, the changed one was generated")

            // Generated again as the first run generated it. (Its second turn need not match the edited
            // run's: that one read its prompt whole, this one after the first turn's cache, and a
            // machine whose batches drift may choose otherwise at a near-tie.)
            let off = try TideProcess.run(["run", "--json", "--no-cache", script.path], environment: environment)
            #expect(replies(off).cached == 0)
            #expect(replies(off).texts.count == 2)
            #expect(replies(off).texts.first == made.texts.first)
        }

        /// An unchanged case its identity determines is given back whole: its replies and verdicts as
        /// before, its plugins not run again. One whose plugin read the clock runs again (its
        /// replies still from the cache, through the plugin); so does one whose script changed.
        @Test func anUnchangedDeterminedCaseIsGivenBackWholeAndOneWhosePluginReadTheClockRunsAgain() throws {
            let (script, environment) = try script()
            let folder = script.deletingLastPathComponent()
            func plugin(_ name: String, reading clock: Bool) throws {
                try """
                -- \(name): says each reply it sees\(clock ? ", and when" : "").
                local plugin = { name = "\(name)" }
                function plugin.on_reply(reply) tide.log("saw a reply\(clock ? " at \" .. os.time()" : "\"")) end
                return plugin
                """.write(to: folder.appendingPathComponent("\(name).lua"), atomically: true, encoding: .utf8)
            }
            try plugin("noting", reading: false)
            try plugin("timing", reading: true)
            let text = try String(contentsOf: script, encoding: .utf8)
            let timed = folder.appendingPathComponent("timed.tide")
            try ("@plugin ./timing.lua\n" + text).write(to: timed, atomically: true, encoding: .utf8)
            try ("@plugin ./noting.lua\n" + text).write(to: script, atomically: true, encoding: .utf8)

            let first = try TideProcess.run(["run", "--json", script.path, timed.path], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.components(separatedBy: "saw a reply").count == 5, "both plugins ran: \(first.stderr)")
            let again = try TideProcess.run(["run", script.path, timed.path], environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(!again.stderr.contains("[noting] saw a reply"), "the determined case was given back whole: \(again.stderr)")
            #expect(again.stderr.components(separatedBy: "[timing] saw a reply at").count == 3,
                    "the case whose plugin read the clock ran again: \(again.stderr)")
            #expect(again.stdout.contains("replies: 4 of 4 from the cache"), "\(again.stdout)")
            #expect(again.stdout.contains("cases: 1 of 2 given back whole from the cache"), "\(again.stdout)")
            let json = try TideProcess.run(["run", "--json", script.path, timed.path], environment: environment)
            #expect(json.jsonSummary?["passed"] as? Int == first.jsonSummary?["passed"] as? Int)
            #expect(json.jsonSummary?["cached_replies"] as? Int == 4)
            #expect(replies(json).texts == replies(first).texts)

            try ("@plugin ./noting.lua\n" + text.replacingOccurrences(of: "Name a fruit.", with: "Name a tree."))
                .write(to: script, atomically: true, encoding: .utf8)
            let edited = try TideProcess.run(["run", script.path], environment: environment)
            #expect(edited.stderr.components(separatedBy: "[noting] saw a reply").count == 3, "a changed case runs again: \(edited.stderr)")
            #expect(!edited.stdout.contains("given back whole"), "\(edited.stdout)")
        }

        @Test func aDamagedCacheOrOneThatCannotBeWrittenCostsOnlyTheReuse() throws {
            let (script, environment) = try script()
            let first = try TideProcess.run(["run", "--json", script.path], environment: environment)
            let made = replies(first)
            #expect(made.texts.count == 2)
            // Garbage over the middle of the database file, as a bad disk might leave it.
            let database = URL(fileURLWithPath: environment["TIDE_CACHE_DIR"]!).appendingPathComponent("cache.db")
            let handle = try FileHandle(forUpdating: database)
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: size / 2)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
            try handle.close()
            let damaged = try TideProcess.run(["run", "--json", script.path], environment: environment)
            #expect(damaged.status == first.status, "\(damaged.stderr)")
            #expect(replies(damaged).texts == made.texts)
            #expect(damaged.stderr.components(separatedBy: "warning: the cache at").count <= 2, "at most one warning: \(damaged.stderr)")

            // A cache folder under a regular file cannot be made.
            let plain = script.deletingLastPathComponent().appendingPathComponent("plain")
            try Data("x".utf8).write(to: plain)
            let unwritable = try TideProcess.run(["run", "--json", script.path],
                                                 environment: ["TIDE_CACHE_DIR": plain.appendingPathComponent("cache").path])
            #expect(unwritable.status == first.status, "\(unwritable.stderr)")
            #expect(replies(unwritable).texts == made.texts)
            #expect(replies(unwritable).cached == 0)
            #expect(unwritable.stderr.components(separatedBy: "warning: the cache at").count == 2, "one warning: \(unwritable.stderr)")
            #expect(unwritable.stderr.contains("--no-cache"))
        }

        @Test func aChangedLastTurnAfterALongSystemPromptLoadsThePromptsStateInsteadOfReadingIt() throws {
            let (script, environment) = try script()
            let facts = (0..<60).map { "Fact \($0): river \($0) flows into lake \($0 % 7)." }.joined(separator: " ")
            try "@temperature 0\n@max-tokens 4\nsystem: You are a helpful assistant. \(facts)\nuser: Name a colour.\nuser: Name a fruit.\n"
                .write(to: script, atomically: true, encoding: .utf8)
            let first = try TideProcess.run(["run", "--json", script.path], environment: environment)
            let made = try #require(first.jsonCases.first?["replies"] as? [[String: Any]])
            #expect(made.count == 2, "\(first.stderr)")
            #expect(made.first?["cached_prompt_tokens"] as? Int == 0)

            try String(contentsOf: script, encoding: .utf8).replacingOccurrences(of: "Name a fruit.", with: "Name a tree.")
                .write(to: script, atomically: true, encoding: .utf8)
            let edited = try TideProcess.run(["run", "--json", script.path], environment: environment)
            let replies = try #require(edited.jsonCases.first?["replies"] as? [[String: Any]])
            #expect(replies.first?["cached"] as? Bool == true)
            #expect(replies.last?["cached"] == nil)
            let loaded = try #require(replies.last?["cached_prompt_tokens"] as? Int)
            let prompt = try #require(replies.last?["prompt_tokens"] as? Int)
            #expect(loaded >= 256 && loaded < prompt, "the system prompt and the first turn came from the kept state: \(loaded) of \(prompt)")
        }

        /// Rows that ask the same are computed once: the cases after the first batch's are given
        /// from the cache as fast as they start, and each still finds its sequence free.
        @Test func rowsThatAskTheSameAreGeneratedOnceInAParallelRun() throws {
            let (script, environment) = try script()
            try "@temperature 0\n@max-tokens 6\nuser: Name a {{thing}}.\nexpect: length >= 0\n".write(to: script, atomically: true, encoding: .utf8)
            let rows = script.deletingLastPathComponent().appendingPathComponent("rows.jsonl")
            try (0..<24).map { "{\"id\": \"r\($0)\", \"thing\": \"colour\"}" }.joined(separator: "\n")
                .write(to: rows, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", "--json", "--parallel", "4", "--data", rows.path, script.path], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.jsonSummary?["errors"] as? Int == 0)
            #expect(run.jsonSummary?["cases"] as? Int == 24)
            #expect((run.jsonSummary?["cached_replies"] as? Int ?? 0) >= 20, "\(run.jsonSummary ?? [:])")
            // Every reply given from the cache is one of those generated (the first few rows run side
            // by side in the batch, where a machine whose batches drift may word them otherwise).
            let given = run.jsonCases.compactMap { ($0["replies"] as? [[String: Any]])?.first }
            let generated = Set(given.filter { $0["cached"] == nil }.compactMap { $0["reply"] as? String })
            #expect(!generated.isEmpty)
            #expect(given.filter { $0["cached"] as? Bool == true }.allSatisfy { generated.contains($0["reply"] as? String ?? "") })
        }

        @Test func aCacheSizeIsASizeAndNeedsTheCache() throws {
            let (script, environment) = try script()
            let bad = try TideProcess.run(["run", "--cache-size", "12 parsecs", script.path], environment: environment)
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("--cache-size is a size such as 500M or 4G"), "\(bad.stderr)")
            let both = try TideProcess.run(["run", "--no-cache", "--cache-size", "1G", script.path], environment: environment)
            #expect(both.status != 0)
            #expect(both.stderr.contains("--no-cache turns off"), "\(both.stderr)")
        }
    }
}
