import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// The command line's log-probabilities: `tide generate --json --logprobs K` gives each token's
    /// with K of the likeliest, their perplexity and mean; without `--json`, a table on standard
    /// error; `tide run --json` gives them per reply, and a script's `perplexity` and
    /// `mean-logprob` checks read them (turning them on for their reply) — checks that fail where
    /// they should: no free reply is certain to the model (perplexity 1).
    @Suite struct LogprobsCommandTests {
        @Test func generateGivesEachTokensLogprob() throws {
            let result = try TideProcess.run(["generate", "--json", "--logprobs", "2", "--max-tokens", "8", "Name a river."])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let logprobs = try #require(json["logprobs"] as? [String: Any], "\(json)")
            let tokens = try #require(logprobs["tokens"] as? [[String: Any]])
            #expect(!tokens.isEmpty && tokens.allSatisfy { ($0["top_logprobs"] as? [Any])?.count == 2 })
            let values = tokens.compactMap { $0["logprob"] as? Double }
            let mean = values.reduce(0, +) / Double(values.count)
            #expect(abs((logprobs["mean_logprob"] as? Double ?? 0) - mean) < 1e-9)
            #expect(abs((logprobs["perplexity"] as? Double ?? 0) - exp(-mean)) < 1e-6)
            #expect((json["parameters"] as? [String: Any])?["logprobs"] as? Int == 2)

            let plain = try TideProcess.run(["generate", "--logprobs", "1", "--max-tokens", "4", "Name a river."])
            #expect(plain.status == 0 && plain.stderr.contains("perplexity ") && plain.stderr.contains("likeliest: "), "\(plain.stderr)")
            let none = try TideProcess.run(["generate", "--json", "--max-tokens", "4", "Name a river."])
            #expect(!none.stdout.contains("\"logprobs\":{"), "no log-probabilities unless asked for: \(none.stdout)")
        }

        /// A server's default would cost every reply, and each request asks for its own.
        @Test func serveRefusesADefaultLogprobs() throws {
            let result = try TideProcess.run(["serve", "--logprobs", "2"])
            #expect(result.status != 0 && result.stderr.contains("--logprobs is each request's to ask for"), "\(result.stderr)")
        }

        @Test func scriptsCheckAReplysLikelihood() throws {
            let folder = try CommandLineTests.scratchFolder("logprobs")
            let script = folder.appendingPathComponent("likelihood.tide")
            try """
                # The bounds that hold for any reply pass; the one no free reply meets fails.
                @max-tokens 12
                user: Name a river.
                expect: perplexity < 100000
                expect: mean-logprob > -50
                expect: perplexity <= 1.0001
                """.write(to: script, atomically: true, encoding: .utf8)
            let result = try TideProcess.run(["run", "--json", script.path])
            #expect(result.status != 0, "a check failed: \(result.stdout)")
            let line = String(result.stdout.split(separator: "\n").first ?? "")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(result.stdout)")
            let reply = try #require((json["replies"] as? [[String: Any]])?.first, "\(json)")
            let checks = try #require(reply["expectations"] as? [[String: Any]])
            let passed: [Bool?] = checks.map { $0["passed"] as? Bool }
            #expect(passed == [true, true, false], "\(checks)")
            #expect((checks.last?["detail"] as? String ?? "").contains("its perplexity is "), "\(checks)")
            let logprobs = try #require(reply["logprobs"] as? [String: Any], "the reply was made with them: \(reply)")
            #expect((logprobs["perplexity"] as? Double ?? 0) > 1.0001)
        }
    }
}
