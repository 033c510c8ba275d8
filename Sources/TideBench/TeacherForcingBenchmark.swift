import Foundation
import TideCore
import TideLlama
import TideProvider
import TideRunner
import TideScript

/// Checking recorded transcripts: `tide run` by teacher forcing against `tide run --regenerate`,
/// on eight 3-turn scripts with long replies and, when run from the repository, the transcripts
/// of `Conversations/`; alternating the order round by round. Teacher forcing is bounded by
/// prompt evaluation, so the prompt-evaluation and decode rates are measured beside it.
struct TeacherForcingBenchmark {
    let model: LlamaModel
    let rounds: Int
    let threads: Int?

    struct Result: Sendable {
        var regenerateSeconds: Double
        var forcedSeconds: Double
        /// The median over rounds of forced time / regenerating time, each pair back to back.
        var ratio: Double
        var scripts: Int
        var replies: Int
        var confirmedReplies: Int
        /// Reply tokens the transcripts hold.
        var recordedTokens: Int
        /// Replies whose text differed between the two ways, in the last round.
        var differingReplies: Int
        /// llama.cpp alone: tokens per second evaluating 512 prompt tokens, 63 tokens after 300
        /// cached (a forced chunk), and one token after 300 cached (decoding).
        var promptRate: Double
        var chunkRate: Double
        var decodeRate: Double
    }

    func run() async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let topics = ["the history of the Roman Empire", "how a compiler works", "a dragon who learns to cook",
                      "the water cycle", "a summer holiday by the sea", "the rules of chess", "growing tomatoes",
                      "how the internet works"]
        var scripts = try topics.enumerated().map { index, topic in
            let file = folder.appendingPathComponent("long-\(index).tide")
            try """
                @temperature 0
                @max-tokens 256
                user: Write a long, detailed text about \(topic).
                expect: tokens >= 200
                user: Now summarise that in three sentences.
                user: Thank you. What is one more interesting fact about it?

                """.write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        let examples = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Conversations").path
        if FileManager.default.fileExists(atPath: examples) { scripts += try ScriptFiles.scripts(in: [examples]) }
        let loaded = FixedModelProvider(LocalModel(weights: model, entry: nil))
        var setup = ModelSetup(model: model.path, threads: threads)
        setup.contextSize = 2048
        // The transcripts, recorded once.
        let transcripts = folder.appendingPathComponent("transcripts")
        var recorded: [String] = []
        for (index, script) in scripts.enumerated() {
            let result = await runner(loaded, setup, regenerate: true).run(file: script)
            if let failure = result.failure { throw BenchmarkError("a benchmark script failed: \(failure)") }
            let path = transcripts.appendingPathComponent("\(index)-" + URL(fileURLWithPath: script).lastPathComponent).path
            try ScriptFiles.write(result.transcript!, to: path, origin: script)
            recorded.append(path)
        }
        var (forcedTimes, regenerateTimes): ([Double], [Double]) = ([], [])
        var last: (forced: [ScriptResult], regenerated: [ScriptResult]) = ([], [])
        for round in 0..<rounds {
            for regenerate in round % 2 == 0 ? [false, true] : [true, false] {
                let start = ContinuousClock.now
                var results: [ScriptResult] = []
                for file in recorded { results.append(await runner(loaded, setup, regenerate: regenerate).run(file: file)) }
                let seconds = (ContinuousClock.now - start).seconds
                if let failure = results.compactMap(\.failure).first { throw BenchmarkError("a transcript failed: \(failure)") }
                if regenerate {
                    regenerateTimes.append(seconds)
                    last.regenerated = results
                } else {
                    forcedTimes.append(seconds)
                    last.forced = results
                }
            }
        }
        let forcedReplies = last.forced.flatMap(\.replies)
        let confirmed = forcedReplies.count { if case .confirmed = $0.teacherForcing { true } else { false } }
        let differing = zip(forcedReplies.map(\.text), last.regenerated.flatMap(\.replies).map(\.text)).count { $0 != $1 }
        let costs = try PromptCost(model: model, threads: threads).run(
            [.init(position: 0, tokens: 512), .init(position: 300, tokens: 63), .init(position: 300, tokens: 1)], rounds: rounds)
        return Result(regenerateSeconds: median(regenerateTimes), forcedSeconds: median(forcedTimes),
                      ratio: median(zip(forcedTimes, regenerateTimes).map { $1 > 0 ? $0 / $1 : 0 }),
                      scripts: scripts.count, replies: forcedReplies.count, confirmedReplies: confirmed,
                      recordedTokens: forcedReplies.reduce(0) { $0 + $1.statistics.generatedTokens },
                      differingReplies: differing,
                      promptRate: 512 / costs[.init(position: 0, tokens: 512)]!,
                      chunkRate: 63 / costs[.init(position: 300, tokens: 63)]!,
                      decodeRate: 1 / costs[.init(position: 300, tokens: 1)]!)
    }

    private func runner(_ loaded: FixedModelProvider, _ setup: ModelSetup, regenerate: Bool) -> ScriptRunner {
        var runner = ScriptRunner(backends: SequentialBackends(models: loaded))
        runner.setup = setup
        runner.regenerate = regenerate
        return runner
    }
}
