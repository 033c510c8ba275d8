import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TideTestSupport

extension CommandLineTests {
    /// A remote target's failures that may pass are retried, with backoff and the server's
    /// `Retry-After`; those that cannot pass are not; a case that still fails is an error of its
    /// target, and the report counts the retries (the misbehaving server fails each text the
    /// first N times it is sent).
    @Suite struct RemoteRetryTests {
        func script(_ lines: [String]) throws -> URL {
            let file = try CommandLineTests.scratchFolder("retry").appendingPathComponent("flaky.tide")
            try lines.map { "user: \($0)\nexpect: contains \"Hello there.\"\n" }.joined().write(to: file, atomically: true, encoding: .utf8)
            return file
        }

        @Test func failuresThatMayPassAreRetriedAndCounted() async throws {
            let server = try await MisbehavingServer()
            let file = try script(["busy 1", "fail 1", "cut 1", "refuse 2"])
            let started = ContinuousClock.now
            let run = try TideProcess.run(["run", "-q", "--retries", "5", "--remote", server.url.absoluteString, file.path])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            // Each failure reruns the case from its start (the retries are the case's, five here): four retries, the first
            // after Retry-After's second.
            // (A connection closed before the response is tried once more at once, as a stale kept-alive
            // one may be: `refuse 2` fails the case once.)
            #expect(run.stdout.contains("4 passed, 0 failed (1 script, 4 retries of a server's failure, "), "\(run.stdout)")
            #expect(ContinuousClock.now - started >= .seconds(1), "the server asked for a second before the first retry")

            let json = try TideProcess.run(["run", "--json", "--remote", server.url.absoluteString, try script(["busy 01"]).path])
            #expect(json.status == 0)
            #expect((json.jsonSummary?["retries"] as? [String: Int])?[""] == 1, "\(json.stdout)")
        }

        /// Three `tide serve` replicas of one model share a run's replies; one killed mid-run is
        /// left out, its cases retried on the others, and the run passes whole.
        @Test func replicasShareTheRunAndOneKilledIsLeftOut() async throws {
            let servers = [try await TideServer(["--plugin", ScratchPlugins.capitalsFile, "--metrics"]),
                           try await TideServer(["--plugin", ScratchPlugins.capitalsFile, "--metrics"]),
                           try await TideServer(["--plugin", ScratchPlugins.capitalsFile, "--metrics"])]
            defer { for server in servers { _ = server.terminate(waitingAtMost: .seconds(10)) } }
            let folder = try CommandLineTests.scratchFolder("replicas")
            let countries = [("France", "Paris"), ("Italy", "Rome"), ("Germany", "Berlin"), ("Spain", "Madrid")]
            for index in 0..<12 {
                let turns = (0..<4).map { countries[($0 + index) % 4] }.map { "user: What is the capital of \($0.0)?\nexpect: contains \"\($0.1)\"\n" }
                try ("@temperature 0\n@max-tokens 16\n" + turns.joined()).write(to: folder.appendingPathComponent("s\(index).tide"),
                                                                              atomically: true, encoding: .utf8)
            }
            let environment = ["XDG_DATA_HOME": folder.appendingPathComponent("data").path]
            let run = try BackgroundRun(["run", "-q", "--parallel", "3"] + servers.flatMap { ["--remote", $0.url.absoluteString] } + ["."],
                                        in: folder, environment: environment)
            try run.wait(untilRun: 1, keeps: 3)
            kill(servers[2].processIdentifier, SIGKILL)
            let (status, stderr) = try run.finish()
            #expect(status == 0, "\(stderr)")
            let kept = try #require(try BackgroundRun.runs(environment: environment, in: folder).first)
            #expect(kept["passed"] as? Int == 48 && kept["failed"] as? Int == 0 && kept["errors"] as? Int == 0, "\(kept)")
            // The two that lived both answered.
            for server in servers.prefix(2) {
                let (data, _) = try await URLSession.shared.data(from: server.url.appendingPathComponent("metrics"))
                let generated = String(decoding: data, as: UTF8.self).split(separator: "\n")
                    .first { $0.hasPrefix("tide_generated_tokens_total") }.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
                #expect((generated ?? 0) > 0, "\(server.url) served no reply")
            }
        }

        /// llama-cpp-python's servers are replicas as well, one killed mid-run (each script's check
        /// holds for any reply: the model's words are its own). Each takes one
        /// reply at a time (a second interrupts the first), so the run sends one at a time; the
        /// replies alternate while both live.
        @Test func llamaCppPythonServersAreReplicas() async throws {
            let servers = [try await LlamaCppPythonServer(), try await LlamaCppPythonServer()]
            let folder = try CommandLineTests.scratchFolder("python-replicas")
            for index in 0..<6 {
                try "@max-tokens 24\nuser: Say something about \(index).\nexpect-lua: #reply >= 0\n"
                    .write(to: folder.appendingPathComponent("p\(index).tide"), atomically: true, encoding: .utf8)
            }
            let environment = ["XDG_DATA_HOME": folder.appendingPathComponent("data").path]
            let run = try BackgroundRun(["run", "-q", "--model", "smollm2"]
                                        + servers.flatMap { ["--remote", $0.url.absoluteString] } + ["."], in: folder, environment: environment)
            try run.wait(untilRun: 1, keeps: 2)
            servers[1].kill()
            let (status, stderr) = try run.finish()
            #expect(status == 0, "\(stderr)")
            let kept = try #require(try BackgroundRun.runs(environment: environment, in: folder).first)
            #expect(kept["passed"] as? Int == 6 && kept["errors"] as? Int == 0, "\(kept)")
        }

        @Test func aCaseThatStillFailsIsAnErrorOfItsTarget() async throws {
            let server = try await MisbehavingServer()
            let spent = try TideProcess.run(["run", "-q", "--retries", "1", "--target", "flaky: --remote \(server.url.absoluteString)",
                                             try script(["fail 5"]).path])
            #expect(spent.status == 2, "\(spent.stdout)\n\(spent.stderr)")
            #expect(spent.stdout.contains("answered HTTP 503: try again later (still failing after 1 retry)"), "\(spent.stdout)")
            #expect(spent.stdout.contains("0 passed, 0 failed, 1 script could not run"), "\(spent.stdout)")

            // A request the server will never take is not asked again.
            let wrong = try TideProcess.run(["run", "-q", "--remote", server.url.absoluteString, try script(["wrong"]).path])
            #expect(wrong.status == 2)
            #expect(wrong.stdout.contains("answered HTTP 400: that is not a request I take"), "\(wrong.stdout)")
            #expect(!wrong.stdout.contains("still failing after"), "\(wrong.stdout)")

            let none = try TideProcess.run(["run", "--retries", "0", "--remote", server.url.absoluteString, try script(["busy 001"]).path])
            #expect(none.status == 2 && none.stdout.contains("answered HTTP 429"), "\(none.stdout)")
            let bad = try TideProcess.run(["run", "--retries", "99", try script(["x"]).path])
            #expect(bad.status != 0 && bad.stderr.contains("--retries must be from 0 to 20, not 99"), "\(bad.stderr)")
        }
    }
}
