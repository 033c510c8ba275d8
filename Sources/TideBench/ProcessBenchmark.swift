import Foundation
import TideLlama

/// Whole-process figures of `tide generate`: peak resident memory against the budget
/// (model file + KV cache + 64 MiB), and the time from launch to the first byte of the reply.
struct ProcessBenchmark {
    let executable: String
    let model: LlamaModel
    let rounds: Int
    /// The context size `tide generate` uses by default for this model.
    var contextSize: Int { min(4096, model.facts.trainedContextLength) }

    struct Result: Sendable {
        var peakBytes: Int64
        var budgetBytes: Int64
        var modelFileBytes: Int64
        var kvCacheBytes: Int64
        var coldStartSeconds: Double
    }

    func run() throws -> Result {
        var starts: [Double] = []
        var peaks: [Int64] = []
        for _ in 0..<rounds {
            let launch = try launch()
            starts.append(launch.secondsToFirstByte)
            peaks.append(launch.peakBytes)
        }
        let fileBytes = ((try? FileManager.default.attributesOfItem(atPath: model.path)[.size]) as? NSNumber)?.int64Value ?? 0
        let kv = model.kvCacheBytes(contextSize: contextSize)
        return Result(peakBytes: peaks.max() ?? 0, budgetBytes: fileBytes + kv + 64 << 20,
                      modelFileBytes: fileBytes, kvCacheBytes: kv, coldStartSeconds: median(starts))
    }

    /// Launches `tide generate --stats`; returns the seconds until its first byte of output and
    /// the peak memory it reports. (The child's own report, because `getrusage` would count the
    /// memory this process had when it launched the child.)
    private func launch() throws -> (secondsToFirstByte: Double, peakBytes: Int64) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["generate", "--model", model.path, "--temperature", "0", "--max-tokens", "32", "--stats",
                             "What is the capital of France?"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let start = ContinuousClock.now
        try process.run()
        _ = try output.fileHandleForReading.read(upToCount: 1)
        let elapsed = (ContinuousClock.now - start).seconds
        _ = output.fileHandleForReading.readDataToEndOfFile()
        let report = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let match = report.firstMatch(of: /peak memory: ([0-9.]+) MiB/), let mebibytes = Double(match.1) else {
            throw BenchmarkError("`tide generate --stats` reported no peak memory: \(report)")
        }
        return (elapsed, Int64(mebibytes * 1_048_576))
    }
}
