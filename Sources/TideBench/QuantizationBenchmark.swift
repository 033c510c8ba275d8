import Foundation
import TideCore
import TideLlama

/// How fast llama.cpp evaluates prompts and batches on each weights format: the default model
/// (SmolLM2 in Q8_0), the file it is made from (Q4_1, as published), that file requantized to the
/// other ``WeightsFormat``s by llama.cpp itself, and any other model given (Gemma 3's Q4_K_M); and,
/// on the default model, other context settings (micro-batch size, flash attention, threads).
///
/// For each: a 512-token prompt from an empty cache and one token after it (llama.cpp alone,
/// ``PromptCost``), the 8-sequence step over 8 single steps (``BatchCeiling``), and whether a
/// batch scores each token exactly as a decode of it alone (what drafting and teacher forcing
/// need). The formats are measured in turn within each round, so that the drift of the machine
/// falls on all of them. Also the engine's own decode rate on the default model against the
/// original file (greedy replies without drafting, alternating), the figure the default must not
/// lose on.
struct QuantizationBenchmark {
    let model: LlamaModel
    let original: LlamaModel?
    let others: [LlamaModel]
    let rounds: Int
    let tokens: Int
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

    struct Result: Sendable {
        var rows: [Row]
        /// The engine's decode rates on the default model and on the original file (medians),
        /// and the median of the paired ratios default / original.
        var engineDecode: (defaultRate: Double, originalRate: Double, ratio: Double)?
    }

    func run() async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cores = threads ?? LlamaContextOptions.coreCount
        var models: [(name: String, model: LlamaModel)] = [("default", model)]
        if let original {
            models.append(("as published", original))
            for format in WeightsFormat.allCases where format.rawValue != model.facts.quantization {
                let path = folder.appendingPathComponent("\(format.rawValue).gguf").path
                try LlamaModel.requantize(original.path, to: path, format: format, threads: cores)
                models.append(("published file as \(format.rawValue)", try LlamaModel.load(path: path)))
            }
        }
        models += others.map { ($0.facts.name, $0) }
        let standard = BareContext.Settings(microBatch: 512, flashAttention: true)
        var samples = [Sample](repeating: Sample(), count: models.count)
        for _ in 0..<rounds {
            for (index, entry) in models.enumerated() {
                samples[index].add(try measure(entry.model, threads: threads, settings: standard))
            }
        }
        var rows = zip(models, samples).map { entry, sample in
            row(entry.model, name: entry.name, threads: threads, settings: standard, sample: sample)
        }
        let variants = [(threads, BareContext.Settings(microBatch: 128, flashAttention: true)),
                        (threads, BareContext.Settings(microBatch: 256, flashAttention: true)),
                        (threads, BareContext.Settings(microBatch: 512, flashAttention: false))]
            + (cores > 1 ? [(1, standard)] : [])
        for (threadCount, settings) in variants {
            var sample = Sample()
            for _ in 0..<rounds { sample.add(try measure(model, threads: threadCount, settings: settings)) }
            rows.append(row(model, name: "default", threads: threadCount, settings: settings, sample: sample))
        }
        var decode: (defaultRate: Double, originalRate: Double, ratio: Double)?
        if let original { decode = try await engineDecode(against: original) }
        return Result(rows: rows, engineDecode: decode)
    }

    /// One round's figures for one model.
    private struct Sample {
        var prompt: [Double] = []
        var decode: [Double] = []
        var batch: [Double] = []

        mutating func add(_ other: Sample) {
            prompt += other.prompt
            decode += other.decode
            batch += other.batch
        }
    }

    private func measure(_ model: LlamaModel, threads: Int?, settings: BareContext.Settings) throws -> Sample {
        let prompt = PromptCost.Point(position: 0, tokens: 512)
        let token = PromptCost.Point(position: 512, tokens: 1)
        let costs = try PromptCost(model: model, threads: threads, settings: settings).run([prompt, token], rounds: 3)
        return Sample(prompt: [512 / max(costs[prompt] ?? 0, 1e-9)], decode: [1 / max(costs[token] ?? 0, 1e-9)],
                      batch: [try BatchCeiling(model: model, rounds: 5, threads: threads, settings: settings).run()])
    }

    private func row(_ model: LlamaModel, name: String, threads: Int?, settings: BareContext.Settings, sample: Sample) -> Row {
        let size = (try? FileManager.default.attributesOfItem(atPath: model.path)[.size] as? NSNumber)?.doubleValue ?? 0
        let threadCount = threads ?? LlamaContextOptions.coreCount
        return Row(name: name, format: model.facts.quantization,
                   settings: "\(settings), \(threadCount) thread\(threadCount == 1 ? "" : "s")", fileMiB: size / 1_048_576,
                   promptTokensPerSecond: median(sample.prompt), decodeTokensPerSecond: median(sample.decode),
                   batchRatio: median(sample.batch), exact: model.scoresBatchesExactly(threads: threadCount))
    }

    /// Greedy replies of ``tokens`` tokens to the free-writing prompt, without drafting, on the
    /// default model and on `original`, alternating.
    private func engineDecode(against original: LlamaModel) async throws -> (defaultRate: Double, originalRate: Double, ratio: Double) {
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = tokens
        parameters.draft = .off
        let backends = [try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads)),
                        try LlamaBackend(model: original, options: LlamaContextOptions(contextSize: 2048, threads: threads))]
        var rates: [[Double]] = [[], []]
        for round in 0..<rounds {
            for index in round % 2 == 0 ? [0, 1] : [1, 0] {
                let session = ChatSession(backend: backends[index], systemPrompt: "You are a helpful assistant.", parameters: parameters)
                backends[index].clearCache()
                rates[index].append(try await session.reply(to: DecodeSpeedBenchmark.prompt).collect().summary?.statistics
                    .tokensPerSecond ?? 0)
            }
        }
        return (median(rates[0]), median(rates[1]), median(zip(rates[0], rates[1]).map { $0 / max($1, 1e-9) }))
    }
}
