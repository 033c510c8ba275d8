import Foundation
import Testing
import TideLua
import TideProvider
import TideRunner
import TideScript
import TideTestSupport

/// The runner on the real model: expectations that hold and fail, transcripts that replay,
/// scripts that fail without stopping the others.
@Suite(.serialized) struct ScriptRunnerTests {
    static let models = ModelCache(machine: .underTest)
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    var runner: ScriptRunner {
        var runner = ScriptRunner(backends: SequentialBackends(models: Self.models))
        runner.locator = PluginLocator(directories: [Self.root.appendingPathComponent("Plugins")])
        return runner
    }

    /// Writes `text` as a script in a scratch folder and returns its path.
    func scratch(_ text: String, name: String = "script") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("\(name).tide")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test func expectationsHoldAndFailAsTheyShould() async throws {
        let file = try scratch("""
            @temperature 0
            @plugin \(ScratchPlugins.capitalsFile)
            @max-tokens 32
            user: What is the capital of France?
            expect: contains "Paris"
            expect: contains "Berlin"
            expect: icontains "PARIS"
            expect: not contains "Paris"
            expect: regex "^The capital"
            expect: regex "[0-9]{4}"
            expect: length 10..100
            expect: length < 5
            expect: tokens <= 32
            expect: tokens == 3
            expect: stop eos
            expect: stop max-tokens
            expect-lua: reply:find("Paris") ~= nil and tokens < 32 and stop_reason == "eos"
            expect-lua: user == "nothing"
            expect-lua: error("boom")
            """)
        let result = await runner.run(file: file)
        #expect(result.failure == nil)
        let reply = try #require(result.replies.first)
        #expect(reply.text == "The capital of France is Paris.")
        #expect(reply.expectations.map(\.passed) == [true, false, true, false, true, false, true, false, true, false,
                                                     true, false, true, false, false])
        let details = reply.expectations.filter { !$0.passed }.map(\.detail)
        #expect(Array(details.dropLast()) == ["it does not", "it does", "it does not", "the reply has 31 characters",
                                              "the reply has 7 tokens", "it stopped with eos", "the expression is false"])
        #expect(details.last?.hasPrefix("Lua error: ") == true && details.last?.contains("boom") == true)
        #expect(result.passed == 7 && result.failed == 8)
    }

    /// Tool checks on the real model: the calculator's call is required, so whichever words the
    /// model picks, the call, its schema and its round are certain, and the checks that should
    /// fail fail with what the reply did. Its transcript records the round and replays it
    /// confirmed by teacher forcing.
    @Test func toolChecksHoldAndFailAndTheirTranscriptReplays() async throws {
        let file = try scratch("""
            @temperature 0
            @max-tokens 60
            @plugin calculator
            @tool-choice calculate
            @max-tool-rounds 1
            @parallel-tool-calls false
            user: What is 7 times 6?
            expect: tool-call calculate
            expect: tool-call convert
            expect: tool-args {"type": "object", "required": ["expression"]}
            expect: tool-args {"type": "object", "required": ["x"]}
            expect: tool-rounds == 1
            expect: tool-rounds >= 2
            """)
        let result = await runner.run(file: file)
        #expect(result.failure == nil, "\(result.failure ?? "")")
        let reply = try #require(result.replies.first)
        #expect(reply.expectations.map(\.passed) == [true, false, true, false, true, false])
        #expect(reply.expectations[1].detail == "the reply called calculate")
        #expect(reply.expectations[3].detail.hasPrefix("the arguments of the call of calculate, {\"expression\":"), "\(reply.expectations[3].detail)")
        #expect(reply.expectations[3].detail.hasSuffix("are not valid: (root): missing required property 'x'"), "\(reply.expectations[3].detail)")
        #expect(reply.expectations[5].detail == "the reply made 1 round of tool calls")
        #expect(reply.rounds.count == 1 && reply.rounds.first?.calls.count == 1 && reply.rounds.first?.results.count == 1)
        let transcript = try #require(result.transcript?.printed())
        #expect(transcript.contains("user: What is 7 times 6?\ntool-call:"), "\(transcript)")
        #expect(transcript.contains(" rounds=1\n"), "\(transcript)")
        let written = try scratch(transcript, name: "transcript")
        let replayed = await runner.run(file: written)
        #expect(replayed.replies.first?.text == reply.text)
        #expect(replayed.replies.first?.expectations.map(\.passed) == [true, false, true, false, true, false])
        guard case .confirmed(let tokens, _)? = replayed.replies.first?.teacherForcing else {
            Issue.record("the call and the answer are confirmed: \(String(describing: replayed.replies.first?.teacherForcing))")
            return
        }
        #expect(tokens == reply.statistics.generatedTokens)
        #expect(replayed.transcript?.printed() == transcript)
    }

    @Test func aTranscriptReplaysToTheSameResults() async throws {
        let file = try scratch("""
            # Greedy, two turns, one written exchange between them.
            @temperature 0
            @plugin \(ScratchPlugins.capitalsFile)
            @max-tokens 24
            user: What is the capital of France?
            expect: contains "Paris"
            user: Hi
            assistant: Hello! How can I help?
            user: What is the capital of Italy?
            expect: contains "Berlin"
            """)
        let first = await runner.run(file: file)
        let transcript = try #require(first.transcript)
        #expect(transcript.items.count(where: { if case .generated = $0 { true } else { false } }) == 2)
        let replayed = await runner.run(transcript, file: "transcript.tide")
        #expect(replayed.replies.map(\.text) == first.replies.map(\.text))
        #expect(replayed.replies.map { $0.expectations.map(\.passed) } == first.replies.map { $0.expectations.map(\.passed) })
        // Its own transcript is the same file again.
        #expect(replayed.transcript?.printed() == transcript.printed())
    }

    @Test func goldenRepliesAreComparedWithADiff() async throws {
        let file = try scratch("@temperature 0\n@plugin \(ScratchPlugins.capitalsFile)\n@max-tokens 16\nuser: What is the capital of France?\n")
        let first = await runner.run(file: file)
        let golden = try #require(first.transcript)
        let same = await runner.run(file: file, golden: golden)
        #expect(same.replies.first?.golden?.matches == true && same.failed == 0)
        let edited = try ConversationScript(parsing: golden.printed().replacingOccurrences(of: "Paris", with: "Lyon"))
        let differs = await runner.run(file: file, golden: edited)
        let comparison = try #require(differs.replies.first?.golden)
        #expect(!comparison.matches && differs.failed == 1)
        #expect(comparison.difference == "- The capital of France is Lyon.\n+ The capital of France is Paris.")
    }

    @Test func aRegexThatWouldBacktrackForeverGetsAPromptVerdict() async throws {
        // A backtracking engine (Swift's Regex took 72 s for (x+x+)+y on 20 x's) tries exponentially
        // many ways to split a run of x's, or with (.+.+)+ any reply, before giving up.
        let file = try scratch("""
            @temperature 0
            @plugin \(ScratchPlugins.capitalsFile) text=\(String(repeating: "x", count: 40))
            @max-tokens 48
            user: Write the letter x thirty times in a row, with nothing else.
            expect: regex "(x+x+)+y"
            expect: not regex "(x+x+)+y"
            expect: regex "(a+)+$"
            expect: regex (?s)(.+.+)+\\x00
            """)
        let started = ContinuousClock.now
        let result = await runner.run(file: file)
        // Generation takes nearly all of it (the bound allows for a busy machine).
        #expect(ContinuousClock.now - started < .seconds(120))
        #expect(result.failure == nil)
        let reply = try #require(result.replies.first)
        #expect(reply.text.count > 30)
        // (x+x+)+y matches exactly where two x's come right before a y.
        let matches = reply.text.contains("xxy")
        #expect(reply.expectations.map(\.passed) == [matches, !matches, reply.text.hasSuffix("a"), false])
        #expect(reply.expectations.last?.detail == "it does not")
    }

    @Test func aRegexOverItsBudgetFailsWithOrWithoutNot() async throws {
        let file = try scratch("""
            @temperature 0
            @repeat-penalty 1
            @max-tokens 16
            user: What is the capital of France?
            expect: regex "Paris"
            expect: not regex "Paris"
            """)
        var runner = self.runner
        runner.regexBudget = RegexBudget(steps: 10, guardTime: .seconds(100))
        let result = await runner.run(file: file)
        let reply = try #require(result.replies.first)
        let message = "the regular expression needs more than its 10 steps on a reply of \(reply.text.count) characters: "
            + "a simpler pattern, or a shorter reply, fits"
        #expect(reply.expectations.map(\.passed) == [false, false])
        #expect(reply.expectations.map(\.detail) == [message, message])
    }

    @Test func aFailingScriptKeepsItsPartialTranscript() async throws {
        // The second question does not fit the context (llama.cpp rounds 64 up to 256 tokens).
        let file = try scratch("""
            @ctx-size 64
            @temperature 0
            @max-tokens 8
            system: Be brief.
            user: Hi
            user: \(String(repeating: "Tell me a very long story about the sea. ", count: 40))
            expect: contains "sea"
            """)
        let result = await runner.run(file: file)
        let failure = try #require(result.failure)
        #expect(failure.hasPrefix("\(file):6: the conversation needs"))
        #expect(result.replies.count == 1)
        let transcript = try #require(result.transcript).printed()
        #expect(transcript.contains("@generated"))
        #expect(transcript.contains("# tide run stopped here: \(file):6:"))
    }

    @Test(arguments: [
        ("@plugin no-such-plugin\nuser: Hi", ":1: @plugin no-such-plugin: no plugin 'no-such-plugin'"),
        ("@plugin word-budget words=many\nuser: Hi", ":1: @plugin word-budget words=many: plugin word-budget: words must be a whole number"),
        ("@unload word-budget\nuser: Hi", ":1: @unload word-budget: no plugin of that name is loaded here"),
        ("user: Hi\nexpect-lua: reply ==", ":2: expect-lua does not compile"),
        ("@model no-such-model\nuser: Hi", "unknown model 'no-such-model'"),
    ])
    func problemsAreFoundBeforeTheModelRuns(script: String, message: String) async throws {
        let file = try scratch(script)
        let result = await runner.run(file: file)
        #expect(result.failure?.contains(message) == true, "\(result.failure ?? "no failure")")
        #expect(result.replies.isEmpty)
    }

    @Test func pluginErrorsDisableThePluginOrUnderStrictEndTheScript() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "return { on_token = function() error('broken filter') end }".write(
            to: folder.appendingPathComponent("broken.lua"), atomically: true, encoding: .utf8)
        let file = folder.appendingPathComponent("uses-broken.tide").path
        try "@temperature 0\n@repeat-penalty 1\n@max-tokens 8\n@plugin broken\nuser: Hi\nuser: Bye\n".write(toFile: file, atomically: true, encoding: .utf8)
        let lenient = await runner.run(file: file)
        #expect(lenient.failure == nil)
        #expect(lenient.replies.count == 2)
        #expect(lenient.replies[0].hookFailures.first?.contains("broken filter") == true)
        #expect(lenient.replies[1].hookFailures.isEmpty)
        var strict = runner
        strict.hookErrorPolicy = .failReply
        let fatal = await strict.run(file: file)
        #expect(fatal.failure?.contains("broken filter") == true)
        #expect(fatal.replies.isEmpty)
    }
}
