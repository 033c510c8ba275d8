import Foundation
import TideLlama
import TideProvider
import TideRunner

/// Eight scripts of three turns each, replayed one after another and then as eight parallel
/// sequences of one batch (`tide run --parallel 8`), alternating the order round by round.
struct ParallelReplayBenchmark {
    let model: LlamaModel
    let rounds: Int
    let threads: Int?
    static let scripts = 8

    struct Result: Sendable {
        var sequentialSeconds: Double
        var parallelSeconds: Double
        /// The median over rounds of parallel time / sequential time, each pair back to back.
        var ratio: Double
        var generatedTokens: Int
        /// Replies (of 24) whose text differed between the two replays, in the last round.
        var differingReplies: Int
        /// llama.cpp's own gain from batching 8 sequences (``BatchCeiling``), measured in the same run.
        var ceiling: Double
    }

    func run() async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let topics = ["a lighthouse", "the tides", "a sailing ship", "a coral reef", "a whale", "a storm at sea",
                      "a harbour town", "the moon"]
        let files = try topics.enumerated().map { index, topic in
            let file = folder.appendingPathComponent("script-\(index).tide")
            try """
                @temperature 0
                @max-tokens 128
                user: Tell me a short story about \(topic).
                user: Tell me another one.
                user: And a third, please.

                """.write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        let loaded = FixedModelProvider(LocalModel(weights: model, entry: nil))
        var setup = ModelSetup(model: model.path, threads: threads)
        setup.contextSize = 2048
        var sequentialTimes: [Double] = []
        var parallelTimes: [Double] = []
        var (tokens, differing) = (0, 0)
        for round in 0..<rounds {
            var sequential: [[String]] = []
            var parallel: [[String]] = []
            for side in round % 2 == 0 ? [false, true] : [true, false] {
                let start = ContinuousClock.now
                let results = side ? await replayInParallel(files, loaded: loaded, setup: setup)
                                   : await replayInSequence(files, loaded: loaded, setup: setup)
                let seconds = (ContinuousClock.now - start).seconds
                if let failure = results.compactMap(\.failure).first { throw BenchmarkError("a benchmark script failed: \(failure)") }
                if side {
                    parallelTimes.append(seconds)
                    parallel = results.map { $0.replies.map(\.text) }
                } else {
                    sequentialTimes.append(seconds)
                    sequential = results.map { $0.replies.map(\.text) }
                    tokens = results.reduce(0) { $0 + $1.replies.reduce(0) { $0 + $1.statistics.generatedTokens } }
                }
            }
            differing = zip(sequential.joined(), parallel.joined()).count { $0 != $1 }
        }
        let ratios = zip(parallelTimes, sequentialTimes).map { $1 > 0 ? $0 / $1 : 0 }
        let ceiling = try BatchCeiling(model: model, rounds: 15, threads: threads).run()
        return Result(sequentialSeconds: median(sequentialTimes), parallelSeconds: median(parallelTimes),
                      ratio: median(ratios), generatedTokens: tokens, differingReplies: differing, ceiling: ceiling)
    }

    private func replayInSequence(_ files: [String], loaded: FixedModelProvider, setup: ModelSetup) async -> [ScriptResult] {
        var runner = ScriptRunner(backends: SequentialBackends(models: loaded))
        runner.setup = setup
        var results: [ScriptResult] = []
        for file in files { results.append(await runner.run(file: file)) }
        return results
    }

    private func replayInParallel(_ files: [String], loaded: FixedModelProvider, setup: ModelSetup) async -> [ScriptResult] {
        let backends = BatchedBackends(models: loaded, sequences: files.count)
        var runner = ScriptRunner(backends: backends)
        runner.setup = setup
        return await withTaskGroup(of: (Int, ScriptResult).self) { group in
            for (index, file) in files.enumerated() { group.addTask { [runner] in (index, await runner.run(file: file)) } }
            var results = [ScriptResult?](repeating: nil, count: files.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }
}
