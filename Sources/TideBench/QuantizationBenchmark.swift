import Foundation
import TideLlama

/// How fast llama.cpp evaluates prompts and batches on each weights format: the bundled file,
/// the same weights requantized by llama.cpp itself (``WeightsFormat``), and any other model
/// given (Gemma 3's Q4_K_M); and, on the bundled file, other context settings (micro-batch
/// size, flash attention, threads). For each: a 512-token prompt from an empty cache and one
/// token after it (llama.cpp alone, ``PromptCost``), the 8-sequence step over 8 single steps
/// (``BatchCeiling``), and whether a batch scores each token exactly as a decode of it alone
/// (what drafting and teacher forcing need).
struct QuantizationBenchmark {
    let model: LlamaModel
    let others: [LlamaModel]
    let rounds: Int
    let threads: Int?

    struct Row: Sendable {
        var name: String
        var format: String
        var settings: String
        var fileMiB: Double
        var promptTokensPerSecond: Double
        var decodeTokensPerSecond: Double
        var batchRatio: Double
        var exact: Bool

        /// Prompt evaluation over single-token decoding.
        var promptOverDecode: Double { promptTokensPerSecond / max(decodeTokensPerSecond, 1e-9) }
    }

    func run() throws -> [Row] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cores = threads ?? LlamaContextOptions.coreCount
        var rows = [try measure(model, name: "bundled", threads: threads)]
        for format in WeightsFormat.allCases {
            let path = folder.appendingPathComponent("\(format.rawValue).gguf").path
            try LlamaModel.requantize(model.path, to: path, format: format, threads: cores)
            rows.append(try measure(try LlamaModel.load(path: path), name: "bundled as \(format.rawValue)", threads: threads))
            try? FileManager.default.removeItem(atPath: path)
        }
        for other in others { rows.append(try measure(other, name: other.facts.name, threads: threads)) }
        let variants = [BareContext.Settings(microBatch: 128, flashAttention: true),
                        BareContext.Settings(microBatch: 256, flashAttention: true),
                        BareContext.Settings(microBatch: 512, flashAttention: false)]
        for settings in variants { rows.append(try measure(model, name: "bundled", threads: threads, settings: settings)) }
        if cores > 1 { rows.append(try measure(model, name: "bundled", threads: 1)) }
        return rows
    }

    private func measure(_ model: LlamaModel, name: String, threads: Int?,
                         settings: BareContext.Settings = BareContext.Settings(microBatch: 512, flashAttention: true)) throws -> Row
    {
        let prompt = PromptCost.Point(position: 0, tokens: 512)
        let token = PromptCost.Point(position: 512, tokens: 1)
        let costs = try PromptCost(model: model, threads: threads, settings: settings).run([prompt, token], rounds: rounds)
        let size = (try? FileManager.default.attributesOfItem(atPath: model.path)[.size] as? NSNumber)?.doubleValue ?? 0
        let threadCount = threads ?? LlamaContextOptions.coreCount
        return Row(name: name, format: model.facts.quantization, settings: "\(settings), \(threadCount) thread\(threadCount == 1 ? "" : "s")",
                   fileMiB: size / 1_048_576, promptTokensPerSecond: 512 / max(costs[prompt] ?? 0, 1e-9),
                   decodeTokensPerSecond: 1 / max(costs[token] ?? 0, 1e-9),
                   batchRatio: try BatchCeiling(model: model, rounds: rounds, threads: threads, settings: settings).run(),
                   exact: model.scoresBatchesExactly(threads: threadCount))
    }
}
