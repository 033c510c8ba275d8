import Foundation
import Testing
import TideCore
import TideLlama
import TideLua
import TideProvider
import TideRunner
import TideScript
import TideTestSupport

/// `tide run` on recorded transcripts: checking the recorded replies by teacher forcing gives
/// the verdicts and transcripts that generating them again gives, with every example's plugins
/// (stops, filters, biases, rewinds), on the real model. Where batches drift, a confirmed reply
/// may be spelled in other tokens than generating spells it (``SimulatedMachine/bundledModelBatchesAreExact``).
@Suite(.serialized) struct TeacherForcedRunTests {
    static let models = ModelCache(machine: .underTest)
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func runner(regenerate: Bool = false) -> ScriptRunner {
        var runner = ScriptRunner(backends: SequentialBackends(models: Self.models))
        runner.locator = PluginLocator(directories: [Self.root.appendingPathComponent("Plugins")])
        runner.regenerate = regenerate
        return runner
    }

    /// Each expectation and its verdict, in order.
    func verdicts(_ result: ScriptResult) -> [String] {
        result.replies.flatMap { reply in reply.expectations.map { "\($0.text): \($0.passed)" } }
    }

    /// A transcript as printed; where batches drift, without the counts of its replies' tokens:
    /// the batch's choice between two spellings of the same text may differ from a single
    /// token's, and teacher forcing confirms the text.
    func comparable(_ transcript: ConversationScript?) -> String? {
        guard let printed = transcript?.printed() else { return nil }
        if SimulatedMachine.bundledModelBatchesAreExact { return printed }
        return printed.replacingOccurrences(of: " tokens=[0-9]+", with: "", options: .regularExpression)
    }

    @Test func everyExampleGivesTheSameVerdictsAndTranscriptsBothWays() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-forced-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var confirmed = 0
        var regeneratedFrom = 0
        for file in try ScriptFiles.scripts(in: [Self.root.appendingPathComponent("Conversations").path]) {
            // Generated here, whatever the example records: a transcript of this machine's own replies.
            let recording = await runner(regenerate: true).run(file: file)
            #expect(recording.failure == nil, "\(file): \(recording.failure ?? "")")
            let transcript = folder.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent).path
            try ScriptFiles.write(try #require(recording.transcript), to: transcript, origin: file)

            let forced = await runner().run(file: transcript)
            let regenerated = await runner(regenerate: true).run(file: transcript)
            #expect(forced.failure == nil && regenerated.failure == nil, "\(file)")
            #expect(comparable(forced.transcript) == comparable(regenerated.transcript), "\(file)")
            #expect(verdicts(forced) == verdicts(regenerated), "\(file)")
            #expect(forced.replies.flatMap { $0.expectations.map(\.passed) } == recording.replies.flatMap { $0.expectations.map(\.passed) },
                    "\(file)")
            #expect(forced.replies.map(\.text) == recording.replies.map(\.text), "\(file)")
            #expect(regenerated.replies.allSatisfy { $0.teacherForcing == .skipped(.asked) }, "\(file)")
            for reply in forced.replies {
                switch reply.teacherForcing {
                case .confirmed(let tokens, _)?:
                    confirmed += 1
                    #expect(tokens == reply.statistics.generatedTokens, "\(file):\(reply.line)")
                case .regenerated?: regeneratedFrom += 1
                default: Issue.record("\(file):\(reply.line): \(String(describing: reply.teacherForcing))")
                }
            }
        }
        // Filters rewrite what a transcript records, so their replies are regenerated; the rest hold.
        #expect(confirmed >= 18)
        #expect(regeneratedFrom >= 1)
    }

    @Test func aTranscriptEditedByHandIsCaughtAndRegeneratedFromTheEdit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-edited-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("edited.tide").path
        try """
            @temperature 0
            @plugin \(ScratchPlugins.capitalsFile)
            user: What is the capital of France?
            assistant: The capital of France is Lyon.
            @generated stop="eos" tokens=7
            expect: same-as-recorded
            expect: contains "Paris"
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = await runner().run(file: file)
        let reply = try #require(result.replies.first)
        #expect(reply.text == "The capital of France is Paris.")
        #expect(reply.teacherForcing == .regenerated(from: 5))
        #expect(reply.expectations.map(\.passed) == [false, true])
        #expect(reply.expectations[0].detail == "it differs from the recorded reply:\n- The capital of France is Lyon.\n+ The capital of France is Paris.",
                "\(reply.expectations[0].detail)")
        #expect(result.transcript?.printed().contains("assistant: The capital of France is Paris.") == true)
    }
}
