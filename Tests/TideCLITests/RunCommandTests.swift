import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    @Suite struct RunCommandTests {
        func scratchFolder() throws -> URL { try CommandLineTests.scratchFolder("run") }

        @Test func theExampleConversationsPass() throws {
            let result = try TideProcess.run(["run", "Conversations/"])
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains(" 0 failed (14 scripts"), "\(result.stdout)")
            #expect(!result.stdout.contains("FAIL"))
            #expect(result.stdout.contains("Conversations/capitals.tide:18: PASS expect: contains \"Paris\""))
        }

        @Test func parallelReplayGivesTheSameTranscriptsAsSequential() throws {
            let sequential = try scratchFolder()
            let parallel = try scratchFolder()
            let one = try TideProcess.run(["run", "-q", "--out", sequential.path, "Conversations/"])
            let many = try TideProcess.run(["run", "-q", "--parallel", "4", "--out", parallel.path, "Conversations/"])
            #expect(one.status == 0 && many.status == 0, "\(many.stdout)\n\(many.stderr)")
            // Nothing to warn about: a batch of sequences computes each token as it is computed alone.
            #expect(!many.stdout.contains("parallel") && !many.stdout.contains("differ"))
            let files = try FileManager.default.contentsOfDirectory(atPath: sequential.path).sorted()
            #expect(files.count == 14)
            for file in files {
                let expected = try String(contentsOf: sequential.appendingPathComponent(file), encoding: .utf8)
                let actual = try String(contentsOf: parallel.appendingPathComponent(file), encoding: .utf8)
                #expect(actual == expected, "\(file) differs between sequential and parallel replay")
            }
        }

        @Test func exitStatusesAndTheReport() throws {
            let folder = try scratchFolder()
            let failing = folder.appendingPathComponent("failing.tide")
            try "@temperature 0\n@max-tokens 16\n@plugin \(ScratchPlugins.capitalsFile)\nuser: What is the capital of France?\nexpect: contains \"Berlin\"\n"
                .write(to: failing, atomically: true, encoding: .utf8)
            let broken = folder.appendingPathComponent("broken.tide")
            try "@temperature hot\nuser: Hi\n".write(to: broken, atomically: true, encoding: .utf8)

            let failed = try TideProcess.run(["run", failing.path])
            #expect(failed.status == 1)
            #expect(failed.stdout.contains("failing.tide:5: FAIL expect: contains \"Berlin\": it does not; reply: \"The capital of France is Paris.\""))
            #expect(failed.stdout.contains("0 passed, 1 failed (1 script"))

            // A script that cannot run makes the status 2, and does not stop the others.
            let both = try TideProcess.run(["run", broken.path, failing.path])
            #expect(both.status == 2)
            #expect(both.stdout.contains("broken.tide:1:14: @temperature must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38, not 'hot'"))
            #expect(both.stdout.contains("failing.tide:5: FAIL"))

            let usage = try TideProcess.run(["run", folder.appendingPathComponent("missing.tide").path])
            #expect(usage.status == 2)
            #expect(usage.stderr.contains("missing.tide: no such file or folder"))
            let badOption = try TideProcess.run(["run", "--update", "--check", failing.path])
            #expect(badOption.status == 2)
            #expect(badOption.stderr.contains("choose one"))
        }

        @Test func jsonOutAndGoldenFiles() throws {
            let folder = try scratchFolder()
            let script = folder.appendingPathComponent("capital.tide")
            try "@temperature 0\n@max-tokens 16\n@plugin \(ScratchPlugins.capitalsFile)\nuser: What is the capital of France?\nexpect: contains \"Paris\"\n"
                .write(to: script, atomically: true, encoding: .utf8)

            let json = try TideProcess.run(["run", "--json", script.path])
            #expect(json.status == 0)
            let object = json.jsonCases.first
            #expect(object?["passed"] as? Int == 1 && object?["failed"] as? Int == 0)
            let reply = (object?["replies"] as? [[String: Any]])?.first
            #expect(reply?["reply"] as? String == "The capital of France is Paris.")
            #expect(reply?["stop_reason"] as? String == "eos")

            let out = try scratchFolder()
            _ = try TideProcess.run(["run", "--out", out.path, script.path])
            let transcript = try String(contentsOf: out.appendingPathComponent("capital.tide"), encoding: .utf8)
            #expect(transcript.contains("assistant: The capital of France is Paris.\n@generated stop=\"eos\" tokens=7\n"))
            let replayed = try TideProcess.run(["run", out.appendingPathComponent("capital.tide").path])
            #expect(replayed.status == 0 && replayed.stdout.contains("1 passed, 0 failed"))
            // The recorded reply is checked by teacher forcing, unless told to generate it again.
            #expect(replayed.stdout.contains("capital.tide:4: reply confirmed by teacher forcing (7 tokens)\n"), "\(replayed.stdout)")
            #expect(replayed.stdout.contains("recorded replies: 1 confirmed by teacher forcing\n"))
            let regenerated = try TideProcess.run(["run", "--regenerate", "--json", out.appendingPathComponent("capital.tide").path])
            let forcing = (regenerated.jsonCases.first?["replies"]
                as? [[String: Any]])?.first?["teacher_forcing"] as? [String: Any]
            #expect(forcing?["outcome"] as? String == "skipped" && forcing?["reason"] as? String == "--regenerate")
            #expect(regenerated.stderr.contains("recorded replies: 1 regenerated whole"))

            let missing = try TideProcess.run(["run", "--check", script.path])
            #expect(missing.status == 2 && missing.stdout.contains("record one with --update"))
            let update = try TideProcess.run(["run", "--update", script.path])
            #expect(update.status == 0)
            let goldenFile = folder.appendingPathComponent("capital.golden.tide")
            #expect(FileManager.default.fileExists(atPath: goldenFile.path))
            let check = try TideProcess.run(["run", "--check", script.path])
            #expect(check.status == 0 && check.stdout.contains("reply same as the golden transcript"))
            #expect(check.stdout.contains("reply confirmed by teacher forcing (7 tokens)"))
            // A folder run skips golden transcripts.
            let folderRun = try TideProcess.run(["run", folder.path])
            #expect(folderRun.stdout.contains("(1 script,"))

            let golden = try String(contentsOf: goldenFile, encoding: .utf8)
            try golden.replacingOccurrences(of: "Paris.", with: "Lyon.").write(to: goldenFile, atomically: true, encoding: .utf8)
            let differs = try TideProcess.run(["run", "--check", script.path])
            #expect(differs.status == 1)
            #expect(differs.stdout.contains("reply differs from the golden transcript:\n- The capital of France is Lyon.\n+ The capital of France is Paris."))
            #expect(differs.stdout.contains("reply regenerated from token 5"))
        }
    }
}
