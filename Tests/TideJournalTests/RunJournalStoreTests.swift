import Foundation
import GRDB
import Testing
import TideCore
import TideJournal
@testable import TideRunner
import TideScript

/// The run journal on a real SQLite file: runs begun, found and finished; each run of a case
/// kept whole and read back the same; a damaged row left out, never trusted; files' digests kept
/// by their stamps.
@Suite struct RunJournalStoreTests {
    func journal() throws -> RunJournal {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-journal-\(UUID().uuidString)")
        return try RunJournal(path: folder.appendingPathComponent("tide/runs.db"))
    }

    /// A result with a reply, checks of several kinds (a measure, a negation, Lua), a golden
    /// comparison, teacher forcing's verdict, scores and a transcript with a data row's values.
    func result() throws -> ScriptResult {
        let script = try ConversationScript(parsing: """
            @var city Paris
            @min-pass 0.5
            user: What is the capital of France?
            assistant: The capital of France is Paris.
            @generated stop="eos" tokens=8
            expect: contains "{{city}}"
            expect: not regex "^[a-z]"
            expect: perplexity < 40
            expect-lua: #reply < 200

            """)
        var result = ScriptResult(file: "capitals.tide", name: "capitals")
        result.model = "smollm2-135m-instruct"
        result.row = "fr"
        result.target = "plain"
        result.seconds = 1.25
        result.transcript = script
        result.identity = CaseIdentity(script: "a", model: "b", plugins: "c", settings: "d")
        var statistics = GenerationStatistics()
        statistics.generatedTokens = 8
        statistics.timeToFirstToken = .milliseconds(12)
        statistics.toolResults = [ToolResult(call: ToolCall(id: "call_1", name: "clock", arguments: "{}"), content: "noon", failed: false,
                                              duration: .milliseconds(3))]
        let expectations = script.entries.compactMap { entry -> TideScript.Expectation? in
            if case .expectation(let expectation) = entry.item { expectation } else { nil }
        }
        result.replies = [ReplyResult(
            line: 3, user: "What is the capital of France?", text: "The capital of France is Paris.",
            rounds: [ToolRound(calls: [#"{"name": "clock", "arguments": {}}"#], results: ["noon"])], stopReason: "eos",
            statistics: statistics,
            expectations: expectations.enumerated().map { index, expectation in
                ExpectationResult(expectation: expectation, line: 6 + index, passed: index != 1, detail: index == 1 ? "it does" : "",
                                  measure: index == 2 ? 3.5 : nil)
            },
            hookFailures: ["ban: oops"], formatProblem: nil,
            golden: GoldenComparison(recorded: "The capital is Paris.", matches: false, difference: "-a\n+b"),
            recorded: "The capital of France is Paris.", teacherForcing: .confirmed(tokens: 8, nearTies: NearTies(count: 1, largestMargin: 0.25)),
            logprobs: [TokenLogprob(token: ScoredToken(id: 504, bytes: Array("The".utf8), logprob: -0.01), top: [])],
            verdicts: [RecordedVerdict(rubric: "names Paris", passed: true, reason: "It does.")])]
        return result
    }

    @Test func aCaseIsKeptWholeAndReadBackTheSame() throws {
        let journal = try journal()
        let run = try journal.begin(folder: "/work", arguments: ["-q", "."], command: "tide run -q .", targets: ["plain"], repetitions: 1,
                                    jobs: 2)
        let kept = try result()
        let key = JobKey(file: "capitals.tide", row: "fr", target: "plain", repetition: 0)
        try journal.record(kept, as: key, position: 0, in: run.id)
        let (cases, damaged) = try journal.keptCases(of: run.id)
        #expect(damaged.isEmpty && cases.map(\.key) == [key] && cases.map(\.position) == [0])
        let back = try #require(cases.first?.result)
        #expect(back.label == kept.label && back.model == kept.model && back.seconds == kept.seconds && back.identity == kept.identity)
        #expect(back.passed == kept.passed && back.failed == kept.failed)
        let (reply, original) = (try #require(back.replies.first), kept.replies[0])
        #expect(reply.expectations == original.expectations, "each expectation reads back from its line")
        #expect(reply.expectations.map(\.text) == ["expect: contains \"Paris\"", "expect: not regex \"^[a-z]\"", "expect: perplexity < 40",
                                                   "expect-lua: #reply < 200"])
        #expect(reply.statistics == original.statistics && reply.teacherForcing == original.teacherForcing)
        #expect(reply.logprobs == original.logprobs && reply.verdicts == original.verdicts && reply.golden == original.golden)
        #expect(reply.rounds == original.rounds && reply.hookFailures == original.hookFailures)
        // The transcript comes back with its variables' values and its rates.
        #expect(back.transcript?.minimumPassRates(default: .all).map(\.fraction) == [0.5, 0.5, 0.5, 0.5])
        #expect(back.transcript?.printed() == kept.transcript?.recordingVariables().printed())
    }

    @Test func runsAreFoundByTheirArgumentsAndFinished() throws {
        let journal = try journal()
        let first = try journal.begin(folder: "/work", arguments: ["-q", "."], command: "tide run -q .", targets: [], repetitions: 1, jobs: 3)
        let other = try journal.begin(folder: "/work", arguments: ["."], command: "tide run .", targets: [], repetitions: 1, jobs: 3)
        #expect(try journal.lastUnfinishedRun(folder: "/work", arguments: ["-q", "."])?.id == first.id)
        #expect(try journal.lastUnfinishedRun(folder: "/elsewhere", arguments: ["-q", "."]) == nil)
        try journal.finish(first.id, passed: 5, failed: 1, errors: 0)
        #expect(try journal.lastUnfinishedRun(folder: "/work", arguments: ["-q", "."]) == nil)
        let finished = try #require(try journal.run(first.id))
        #expect(finished.isFinished && finished.passed == 5 && finished.failed == 1 && finished.errors == 0)
        #expect(try journal.runs().map(\.id) == [other.id, first.id])
        #expect(try journal.run(99) == nil)
        // Removed, with the cases they kept.
        try journal.record(try result(), as: JobKey(file: "a.tide", row: nil, target: nil, repetition: 0), position: 0, in: first.id)
        #expect(try journal.runs(olderThanNewest: 1) == [first.id])
        #expect(try journal.remove([first.id, 99]) == [first.id])
        #expect(try journal.runs().map(\.id) == [other.id] && journal.keptCases(of: first.id).cases.isEmpty)
    }

    /// A row whose result was altered, or cut short, fails its checksum and is named, not read.
    @Test func aDamagedCaseIsLeftOutAndNamed() throws {
        let journal = try journal()
        let run = try journal.begin(folder: "/work", arguments: [], command: "tide run", targets: [], repetitions: 1, jobs: 3)
        for (position, file) in ["a.tide", "b.tide", "c.tide"].enumerated() {
            var kept = try result()
            kept.file = file
            try journal.record(kept, as: JobKey(file: file, row: nil, target: nil, repetition: 0), position: position, in: run.id)
        }
        let database = try DatabaseQueue(path: journal.path.path)
        try database.write { db in
            try db.execute(sql: "UPDATE case_run SET result = replace(result, 'Paris', 'Rome') WHERE file = 'a.tide'")
            try db.execute(sql: "UPDATE case_run SET result = substr(result, 1, 40) WHERE file = 'b.tide'")
        }
        let (cases, damaged) = try journal.keptCases(of: run.id)
        #expect(cases.map(\.key.file) == ["c.tide"])
        #expect(damaged.map(\.file) == ["a.tide", "b.tide"])
    }

    /// A file's digest is kept with its size, time and inode; a file that changed is read again.
    @Test func digestsAreKeptUntilTheFileChanges() throws {
        let journal = try journal()
        let file = journal.path.deletingLastPathComponent().appendingPathComponent("model.bin")
        try Data("weights".utf8).write(to: file)
        let digest = FileDigest(store: journal)
        let first = try #require(digest.of(file: file.path))
        #expect(first == "9a129038d9a00aed0cf6a7ea059ca50a813449061ab87848cf1a13eafdf33b2c", "sha256sum of the bytes")
        // A fresh process (a new FileDigest) finds it in the journal.
        #expect(FileDigest(store: journal).of(file: file.path) == first)
        try Data("other weights".utf8).write(to: file)
        let second = try #require(FileDigest(store: journal).of(file: file.path))
        #expect(second != first)
        #expect(FileDigest().of(file: file.deletingLastPathComponent().path) == nil, "a folder has no digest")
    }
}
