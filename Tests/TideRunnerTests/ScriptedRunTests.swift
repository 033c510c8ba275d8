import Foundation
import Synchronization
import Testing
import TideLua
import TideProvider
@testable import TideRunner
import TideTestSupport

/// The runner's logic on a scripted model (replies "You said: …"): no model file. The same
/// runner on the real model is tested in ``ScriptRunnerTests``.
@Suite struct ScriptedRunTests {
    let plugins: URL

    init() throws {
        plugins = try ScratchPlugins.folder(["tag": ScratchPlugins.tag])
    }

    func runner(_ model: ScriptedModel = .echo(), parallel: Int = 1) -> ScriptRunner {
        let models = FixedModelProvider(model)
        var runner = ScriptRunner(backends: parallel > 1 ? BatchedBackends(models: models, sequences: parallel)
                                                         : SequentialBackends(models: models))
        runner.locator = PluginLocator(directories: [plugins])
        return runner
    }

    func scratch(_ text: String, name: String = "script") throws -> String {
        let file = plugins.appendingPathComponent("\(name).tide")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test func stepsApplyInOrderAndEveryReplyIsChecked() async throws {
        let file = try scratch("""
            @max-tokens 3
            system: Be brief.
            user: one two three four
            assistant: Written by hand.
            user: hello world
            expect: contains "You said"
            expect: contains "world"
            @max-tokens 10
            @plugin tag mark=late
            user: hello world
            expect: regex "late]$"
            """)
        let result = await runner().run(file: file)
        #expect(result.failure == nil)
        #expect(result.replies.map(\.text) == ["You said: hello", "You said: hello world[late]"])
        try #require(result.replies.count == 2)
        #expect(result.replies[0].stopReason == "max-tokens")
        #expect(result.replies[0].expectations.map(\.passed) == [true, false])
        #expect(result.replies[1].expectations.map(\.passed) == [true])
        let transcript = try #require(result.transcript?.printed())
        #expect(transcript.contains("user: hello world\nassistant: You said: hello\n@generated stop=\"max-tokens\" tokens=3\n"))
    }

    /// `@plugin NAME` replaces a loaded plugin of that name (here one from `--plugin`) where it
    /// stands; `@unload NAME` removes it.
    @Test func aPluginOfALoadedNameReplacesIt() async throws {
        var runner = runner()
        runner.plugins = ["tag mark=command-line"]
        let file = try scratch("user: a\n@plugin tag mark=script\nuser: b\n@unload tag\nuser: c\n")
        let result = await runner.run(file: file)
        #expect(result.failure == nil)
        #expect(result.replies.map(\.text) == ["You said: a[command-line]", "You said: b[script]", "You said: c"])
    }

    @Test func scriptsReplayedSideBySideGiveTheSameResults() async throws {
        let files = try (0..<4).map { index in
            try scratch("@plugin tag mark=\(index)\nuser: script \(index)\nuser: again \(index)\n", name: "side-\(index)")
        }
        let sequential = runner(.echo(tokenDelay: .milliseconds(2)))
        var one: [[String]] = []
        for file in files { one.append(await sequential.run(file: file).replies.map(\.text)) }
        let parallel = runner(.echo(tokenDelay: .milliseconds(2)), parallel: 4)
        let side = await withTaskGroup(of: (Int, [String]).self) { group in
            for (index, file) in files.enumerated() { group.addTask { (index, await parallel.run(file: file).replies.map(\.text)) } }
            return await group.reduce(into: [[String]](repeating: [], count: files.count)) { $0[$1.0] = $1.1 }
        }
        #expect(one == side)
        #expect(one[2] == ["You said: script 2[2]", "You said: again 2[2]"])
    }

    /// A failure names the file and line, keeps the replies before it, and carries the
    /// remedies of the error behind it for the command line to name.
    @Test func aContextOverflowEndsTheScriptWithItsRemedies() async throws {
        let file = try scratch("user: short\nuser: \(String(repeating: "long ", count: 30))\n")
        let result = await runner(.echo(contextSize: 120)).run(file: file)
        #expect(result.replies.count == 1)
        #expect(result.failure?.hasPrefix("\(file):2: the conversation needs") == true, "\(result.failure ?? "")")
        #expect(result.remedies == [.contextSize, .dropOldestTurns])
        #expect(result.transcript?.printed().contains("# tide run stopped here: \(file):2:") == true)
    }

    /// Format directives set each reply's format, files named from the script's folder; the
    /// checks judge any reply; a reply not complete in its format is reported. (The scripted model
    /// replies with the user's message, word by word, and enforces no format.)
    @Test func formatsApplyFromTheirLineAndRepliesAreChecked() async throws {
        try #"{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}"#
            .write(to: plugins.appendingPathComponent("city.json"), atomically: true, encoding: .utf8)
        let parrot = ScriptedModel { messages in
            (messages.last?.content ?? "").split(separator: " ", omittingEmptySubsequences: false).enumerated()
                .map { $0.offset == 0 ? String($0.element) : " " + $0.element }
        }
        let file = try scratch("""
            user: {"city": "Rome"}
            expect: json
            expect: not json-schema city.json
            @json-schema city.json
            user: {"city": "Rome"}
            expect: json-schema city.json
            user: {"town": "Rome"}
            expect: json-schema city.json
            @max-tokens 2
            user: {"city": "Rome", "country": "Italy"}
            expect: json
            @format text
            user: plain words
            expect: not json
            """)
        let result = await runner(parrot).run(file: file)
        #expect(result.failure == nil)
        #expect(result.replies.map { $0.expectations.map(\.passed) } == [[true, false], [true], [false], [false], [true]])
        #expect(result.replies[2].expectations[0].detail.contains("city"), "\(result.replies[2].expectations[0].detail)")
        #expect(result.replies.map { $0.formatProblem == nil } == [true, true, false, false, true])
        #expect(result.replies[2].formatProblem?.hasPrefix("not valid against the schema: ") == true)
        #expect(result.replies[3].formatProblem == "incomplete: the reply ended (max-tokens) before its JSON was complete")
        let missing = try scratch("@grammar nowhere.gbnf\nuser: hi\n", name: "missing")
        let refused = await runner(parrot).run(file: missing)
        #expect(refused.replies.isEmpty)
        #expect(refused.failure?.contains("missing.tide:1: @grammar nowhere.gbnf:") == true, "\(refused.failure ?? "")")
    }

    /// The text checks on a reply the scripted model gives ("You said: …").
    @Test func textChecksJudgeTheReply() async throws {
        let file = try scratch("""
            user: Paris is big. Rome is old!
            expect: equals "You said: Paris is big. Rome is old!"
            expect: istarts-with "you SAID"
            expect: ends-with "old!"
            expect: not ends-with "big."
            expect: contains-any "Berlin" "Rome"
            expect: contains-any "Berlin" "Madrid"
            expect: icontains-all "paris" "ROME"
            expect: contains-all "Paris" "Oslo"
            expect: words == 8
            expect: sentences == 2
            expect: rate >= 0 tok/s
            """)
        let result = await runner().run(file: file)
        #expect(result.failure == nil)
        let checks = try #require(result.replies.first?.expectations)
        #expect(checks.map(\.passed) == [true, true, true, true, true, false, true, false, true, true, true])
        #expect(checks[5].detail == "none of them is in the reply")
        #expect(checks[7].detail == "missing \"Oslo\"")
    }

    /// Recorded replies are checked against their recording; a scripted model cannot force
    /// tokens, so each says why it was generated again.
    @Test func recordedRepliesAreComparedWithTheirRecording() async throws {
        let file = try scratch("""
            @temperature 0
            user: hello
            assistant: You said: hello
            @generated stop="eos" tokens=3
            expect: same-as-recorded
            user: bye
            assistant: Something else
            @generated stop="eos" tokens=2
            expect: same-as-recorded
            expect: not same-as-recorded
            user: again
            expect: same-as-recorded
            user: fast
            assistant: You said: fast
            @generated stop="eos" tokens=3
            expect: ttft < 100000 ms
            """)
        let result = await runner().run(file: file)
        let server = "the model samples on its server"
        #expect(result.failure == nil)
        #expect(result.replies.map(\.teacherForcing) == [.skipped(.unavailable(server)), .skipped(.unavailable(server)), nil, .skipped(.speedChecks)])
        #expect(result.replies.map { $0.expectations.map(\.passed) } == [[true], [false, true], [false], [true]])
        #expect(result.replies[1].expectations[0].detail == "it differs from the recorded reply:\n- Something else\n+ You said: bye")
        #expect(result.replies[2].expectations[0].detail.hasPrefix("the turn has no recorded reply to compare with"))
        var regenerating = runner()
        regenerating.regenerate = true
        let again = await regenerating.run(file: file)
        #expect(again.replies.map(\.teacherForcing) == [.skipped(.asked), .skipped(.asked), nil, .skipped(.asked)])
    }

    @Test func sentencesAndWords() {
        #expect(ExpectationChecker.sentences(in: "Pi is 3.14. Really?! Yes... and no") == 4)
        #expect(ExpectationChecker.sentences(in: "") == 0)
        #expect(ExpectationChecker.sentences(in: "...") == 0)
        #expect(ExpectationChecker.sentences(in: "One. Two.") == 2)
        #expect(ExpectationChecker.words(in: "  one\ttwo\nthree ") == 3)
    }

    /// Parallel replay on a model whose batches are not bit-exact says so once per run, whatever
    /// the number of scripts; on an exact one it says nothing.
    @Test func inexactBatchesAreNamedOncePerRun() async throws {
        let files = try (0..<3).map { try scratch("user: hello \($0)\nexpect: contains \"hello\"\n", name: "inexact-\($0)") }
        for exact in [false, true] {
            var model = ScriptedModel.echo()
            model.batchesScoreExactly = exact
            let notices = Mutex<[String]>([])
            var runner = ScriptRunner(backends: BatchedBackends(models: FixedModelProvider(model), sequences: files.count) { message in
                notices.withLock { $0.append(message) }
            })
            runner.locator = PluginLocator(directories: [plugins])
            for file in files {
                let result = await runner.run(file: file)
                #expect(result.passed == 1, "\(result.failure ?? "") \(result.replies.map(\.text))")
            }
            let said = notices.withLock { $0 }
            #expect(said.count == (exact ? 0 : 1), "\(said)")
            #expect(said.allSatisfy { $0.contains("scripted:scripted's batches otherwise than single tokens") && $0.contains("tolerance") })
        }
    }
}
