import Foundation
import Testing

extension CommandLineTests {
    /// `expect: similar` and `expect: similar-to-recorded` in `tide run`, on a reply a grammar
    /// makes certain ("Paris is the capital of France."): a paraphrase passes and an unrelated
    /// text fails (margins of the model's meaning, far beyond any kernel's drift), `not` turns a
    /// check round, the report and `--json` give the figure, a transcript's recorded reply is
    /// compared with, and a missing embedding model fails the check saying so.
    @Suite struct SimilarCheckTests {
        static func script(in folder: URL) throws -> URL {
            try #"root ::= "Paris is the capital of France.""#.write(to: folder.appendingPathComponent("paris.gbnf"), atomically: true,
                                                                        encoding: .utf8)
            let script = folder.appendingPathComponent("paris.tide")
            try """
                # The reply is fixed by a grammar; its meaning is compared with others'.
                @grammar paris.gbnf
                user: What is the capital of France?
                expect: similar "The capital city of France is Paris." >= 0.8
                expect: not similar "My cat sleeps on the windowsill all afternoon." >= 0.5
                expect: similar-to-recorded >= 0.99

                """.write(to: script, atomically: true, encoding: .utf8)
            return script
        }

        @Test func meaningsAreComparedAndTheFigureReported() throws {
            let folder = try CommandLineTests.scratchFolder("similar")
            let script = try Self.script(in: folder)
            let out = folder.appendingPathComponent("out")
            let first = try TideProcess.run(["run", "-v", "--out", out.path, script.path])
            // Nothing recorded yet: the recorded comparison cannot be made, and says how to record one.
            #expect(first.status == 1, "\(first.stdout)\(first.stderr)")
            #expect(first.stdout.contains(#"✓ expect: similar "The capital city of France is Paris." >= 0.8 (0."#), "\(first.stdout)")
            #expect(first.stdout.contains("✓ expect: not similar"), "\(first.stdout)")
            #expect(first.stdout.contains("similar-to-recorded >= 0.99: the turn has no recorded reply"), "\(first.stdout)")

            // The transcript records the reply: compared with itself, and the figures in --json.
            let transcript = out.appendingPathComponent("paris.tide")
            let second = try TideProcess.run(["run", "--json", transcript.path])
            #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
            let report = try #require(second.jsonCases.first)
            let checks = try #require((report["replies"] as? [[String: Any]])?.first?["expectations"] as? [[String: Any]])
            let measures = checks.compactMap { $0["measure"] as? Double }
            #expect(measures.count == 3 && checks.allSatisfy { $0["passed"] as? Bool == true }, "\(checks)")
            #expect(measures[0] > 0.8 && measures[1] < 0.3 && measures[2] > 0.999, "\(measures)")

            let missing = try TideProcess.run(["run", "--embedding-model", folder.appendingPathComponent("none.gguf").path, script.path])
            #expect(missing.status == 1 && missing.stdout.contains("the embedding model failed:"), "\(missing.stdout)\(missing.stderr)")
        }

        /// An empty reply has no meaning to compare: it fails a similarity check (with `not` too),
        /// saying so, though its vector was 0.51 from "hello"; an embedding model that is a chat
        /// model is said to give vectors of little meaning.
        @Test func anEmptyReplyFailsSimilarityChecks() throws {
            let folder = try CommandLineTests.scratchFolder("similar-empty")
            let script = folder.appendingPathComponent("empty.tide")
            try """
                @max-tokens 0
                user: Say hello.
                expect: similar "hello" >= 0.5
                expect: not similar "hello" >= 0.99

                """.write(to: script, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", "-v", script.path])
            #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
            for check in [#"✗ expect: similar "hello" >= 0.5 — the reply is empty"#, #"✗ expect: not similar "hello" >= 0.99 — the reply is empty"#] {
                #expect(run.stdout.contains(check), "\(run.stdout)")
            }
            let chat = try TideProcess.run(["embed", "--model", "smollm2-135m-instruct", "hello"])
            #expect(chat.stderr.contains("is not an embedding model"), "\(chat.stderr)")
        }

        @Test func aBoundOutsideACosinesRangeIsRefusedWhenRead() throws {
            let folder = try CommandLineTests.scratchFolder("similar-bound")
            let script = folder.appendingPathComponent("bad.tide")
            try "user: Hi\nexpect: similar \"Hello\" >= 1.2\n".write(to: script, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", script.path])
            #expect(run.status == 2 && (run.stdout + run.stderr).contains("bad.tide:2:25: a similarity is a cosine, from -1 to 1"), "\(run.stdout)\(run.stderr)")
        }
    }
}
