import Foundation
import Testing

extension CommandLineTests {
    /// `expect: judge "RUBRIC"` in `tide run`. Where Tide is the subject, the judge's words are made
    /// certain: the judge is a preset whose plugin answers in the model's place, from what the judge
    /// is shown (the user turn, the reply, the rubric), so the verdicts say that Tide showed it the
    /// right things and read its answer; a judge that does not answer in form fails the check. A
    /// real judge is tried through `--judge URL` against `tide serve`, where any verdict will do
    /// but it must come in form, with a reason.
    @Suite struct JudgeCheckTests {
        /// A folder with the reply's grammar, the judge's plugin and a registry whose presets use it.
        static func folder() throws -> (folder: URL, environment: [String: String]) {
            let folder = try CommandLineTests.scratchFolder("judge")
            try #"root ::= "Paris is the capital of France.""#.write(to: folder.appendingPathComponent("paris.gbnf"), atomically: true,
                                                                        encoding: .utf8)
            // Passes when the reply names the word the rubric asks for ("names WORD"), saying what it read.
            try #"""
                -- A judge that reads what Tide shows it and gives its verdict without the model.
                return { on_prompt = function(prompt)
                  local shown = prompt.messages[#prompt.messages].content
                  local user = shown:match("The user's message:\n<<<\n(.-)\n>>>")
                  local reply = shown:match("The assistant's reply:\n<<<\n(.-)\n>>>")
                  local word = shown:match("The rubric: names (%a+)")
                  if not (user and reply and word) then return "no verdict" end
                  local pass = reply:find(word, 1, true) ~= nil
                  return string.format('{"pass": %s, "reason": "asked \'%s\', read \'%s\'"}', tostring(pass), user, reply)
                end }
                """#.write(to: folder.appendingPathComponent("verdict.lua"), atomically: true, encoding: .utf8)
            try #"return { on_prompt = function(prompt) return "I think it does." end }"#
                .write(to: folder.appendingPathComponent("mumble.lua"), atomically: true, encoding: .utf8)
            let config = folder.appendingPathComponent("config/tide")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            let verdict = folder.appendingPathComponent("verdict.lua").path
            let mumble = folder.appendingPathComponent("mumble.lua").path
            try """
                {"models": [{"name": "reading-judge", "kind": "preset", "from": "smollm2-135m-instruct", "plugins": ["\(verdict)"]},
                            {"name": "mumbling-judge", "kind": "preset", "from": "smollm2-135m-instruct", "plugins": ["\(mumble)"]}]}
                """.write(to: config.appendingPathComponent("models.json"), atomically: true, encoding: .utf8)
            return (folder, ["XDG_CONFIG_HOME": folder.appendingPathComponent("config").path])
        }

        @Test func theJudgeReadsTheTurnAndItsVerdictDecides() throws {
            let (folder, environment) = try Self.folder()
            let script = folder.appendingPathComponent("paris.tide")
            try """
                # Judged by a preset whose plugin decides from what it is shown.
                @judge reading-judge
                @grammar paris.gbnf
                user: What is the capital of France?
                expect: judge "names Paris"
                expect: not judge "names Rome"

                """.write(to: script, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", "--json", "--repeat", "2", script.path], environment: environment)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            let verbose = try TideProcess.run(["run", "-v", script.path], environment: environment)
            #expect(verbose.status == 0, "\(verbose.stdout)\(verbose.stderr)")
            #expect(verbose.stdout.contains(#"✓ expect: judge "names Paris" (asked 'What is the capital of France?', read 'Paris is the capital of France.')"#),
                    "\(verbose.stdout)")

            // --judge names the judge when the script does not; one that does not answer in form fails the check.
            let plain = folder.appendingPathComponent("plain.tide")
            try String(try String(contentsOf: script, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("@judge") }
                .joined(separator: "\n")).write(to: plain, atomically: true, encoding: .utf8)
            let judged = try TideProcess.run(["run", "--judge", "reading-judge", "--json", plain.path], environment: environment)
            #expect(judged.status == 0, "\(judged.stdout)\(judged.stderr)")
            let report = try #require(judged.jsonCases.first)
            let checks = try #require((report["replies"] as? [[String: Any]])?.first?["expectations"] as? [[String: Any]])
            #expect(checks.allSatisfy { ($0["reason"] as? String)?.contains("read 'Paris is the capital of France.'") == true }, "\(checks)")
            let mumbled = try TideProcess.run(["run", "--judge", "mumbling-judge", plain.path], environment: environment)
            #expect(mumbled.status == 1, "\(mumbled.stdout)\(mumbled.stderr)")
            #expect(mumbled.stdout.contains(#"the judge gave no verdict: it answered "I think it does.""#), "\(mumbled.stdout)")
        }

        /// A transcript records each verdict; a reply teacher forcing confirms takes it again
        /// without asking the judge (here one that could not answer), unless `--rejudge`.
        @Test func aConfirmedReplyKeepsItsRecordedVerdict() throws {
            let (folder, environment) = try Self.folder()
            let script = folder.appendingPathComponent("paris.tide")
            try """
                # Judged once, then taken from the transcript (greedy, so that teacher forcing checks it).
                @temperature 0
                @grammar paris.gbnf
                user: What is the capital of France?
                expect: judge "names Paris"

                """.write(to: script, atomically: true, encoding: .utf8)
            let out = folder.appendingPathComponent("out")
            let first = try TideProcess.run(["run", "--judge", "reading-judge", "--out", out.path, script.path], environment: environment)
            #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
            let transcript = out.appendingPathComponent("paris.tide")
            let written = try String(contentsOf: transcript, encoding: .utf8)
            #expect(written.contains(#"@verdict pass "names Paris" "asked 'What is the capital of France?', read 'Paris is the capital of France.'""#),
                    "\(written)")
            let again = try TideProcess.run(["run", "-v", "--judge", "mumbling-judge", transcript.path], environment: environment)
            #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
            #expect(again.stdout.contains(#"✓ expect: judge "names Paris" (recorded: asked"#), "\(again.stdout)")
            let rejudged = try TideProcess.run(["run", "--rejudge", "--judge", "mumbling-judge", transcript.path], environment: environment)
            #expect(rejudged.status == 1 && rejudged.stdout.contains("the judge gave no verdict"), "\(rejudged.stdout)")
        }

        @Test func aRealJudgeOnAServerAnswersInForm() async throws {
            let (folder, environment) = try Self.folder()
            let server = try await TideServer()
            let script = folder.appendingPathComponent("served.tide")
            try """
                # Judged by the model behind tide serve.
                @grammar paris.gbnf
                user: What is the capital of France?
                expect: judge "the reply names a city"

                """.write(to: script, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", "--judge", server.url.absoluteString, "--json", script.path], environment: environment)
            let report = try #require(run.jsonCases.first, "\(run.stderr)")
            let check = try #require(((report["replies"] as? [[String: Any]])?.first?["expectations"] as? [[String: Any]])?.first)
            // Any verdict, but one: a reason comes with it, pass or fail.
            #expect((check["reason"] as? String)?.isEmpty == false, "\(check)")
            #expect(!(check["detail"] as? String ?? "").contains("no verdict"), "\(check)")
        }
    }
}
