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
        for _ in 0..<rounds { starts.append(try launchToFirstByte()) }
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        let fileBytes = ((try? FileManager.default.attributesOfItem(atPath: model.path)[.size]) as? NSNumber)?.int64Value ?? 0
        let kv = model.kvCacheBytes(contextSize: contextSize)
        return Result(peakBytes: Int64(usage.ru_maxrss) * 1024, budgetBytes: fileBytes + kv + 64 << 20,
                      modelFileBytes: fileBytes, kvCacheBytes: kv, coldStartSeconds: median(starts))
    }

    /// Launches `tide generate` and returns the seconds until its first byte of output.
    private func launchToFirstByte() throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["generate", "--model", model.path, "--temperature", "0", "--max-tokens", "32",
                             "What is the capital of France?"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        _ = try output.fileHandleForReading.read(upToCount: 1)
        let elapsed = (ContinuousClock.now - start).seconds
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return elapsed
    }
}
