import CLlama
import Foundation
import TideCore
import TideLlama

/// How far llama.cpp's scores for the same tokens move from one kernel to another: the
/// measurement behind Tide's default tolerance (``Tolerance/standard``, docs/conversations.md).
///
/// Eight texts are continued greedily, one token at a time, in a context with Tide's settings
/// (flash attention on), keeping each position's eight best scores. The same tokens are then
/// evaluated in batches of 63 (as teacher forcing evaluates a recording) and, when a file of
/// another build's scores is given, one at a time again with this build. At each position the
/// figure is the largest difference among the reference's eight best scores, and, where the best
/// token differs, the margin the reference's token needs to be chosen — the tolerance that would
/// confirm it.
struct ScoreDriftBenchmark {
    let model: LlamaModel
    let threads: Int?
    /// The machine whose scores are read: a simulated one moves them (the figure then measures the simulation).
    let machine: SimulatedMachine
    /// A file of another build's scores to compare with; written, with this build's, when it
    /// does not exist.
    let scoresFile: String?

    static let topics = ["the history of the Roman Empire", "how a compiler works", "a dragon who learns to cook",
                         "the water cycle", "a summer holiday by the sea", "the rules of chess", "growing tomatoes",
                         "how the internet works"]
    /// Tokens continued per text.
    static let replyLength = 128
    /// Best scores kept and compared per position.
    static let compared = 8

    /// The score movement between two ways of computing the same positions.
    struct Drift: Sendable {
        /// Per position: the largest absolute difference among the reference's best scores.
        var differences: [Float] = []
        /// Per position whose best token differs: the margin the reference's best token needs.
        var flips: [Float] = []

        /// The `fraction` quantile of ``differences`` (nearest rank).
        func quantile(_ fraction: Double) -> Float {
            let sorted = differences.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(max(Int((fraction * Double(sorted.count)).rounded(.up)) - 1, 0), sorted.count - 1)]
        }

        /// The share of positions whose scores moved at all.
        var movedShare: Double { differences.isEmpty ? 0 : Double(differences.count { $0 > 0 }) / Double(differences.count) }
    }

    struct Result: Sendable {
        var positions: Int
        /// Batches of 63 against one token at a time, on this build.
        var batch: Drift
        /// This build against the file's, one token at a time, and the file's build (its CPU features, and the
        /// CPU that wrote it).
        var otherBuild: Drift?
        var otherBuildName: String?
        var otherCPU: String?
        /// This build's CPU features, as llama.cpp prints them.
        var build: String
        /// The file written, when there was none to compare with.
        var written: String?
    }

    /// The scores file: the tokens and each position's best scores, and the build that gave them.
    struct Recording: Codable {
        var build: String
        /// The CPU that wrote it (`/proc/cpuinfo`'s model name, family and model), where known.
        var cpu: String?
        /// The model's name, weights format and parameter count: the file must be the same model.
        var model: String
        var prompts: [[Int32]]
        var replies: [[Int32]]
        /// Per text, per position: the best token ids and their scores, best first.
        var ids: [[[Int32]]]
        var logits: [[[Float]]]
    }

    func run() throws -> Result {
        let build = String(cString: llama_print_system_info()).trimmingCharacters(in: .whitespacesAndNewlines)
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 512, threads: threads, machine: machine))
        var reference: Recording
        var other: Recording?
        if let scoresFile, FileManager.default.fileExists(atPath: scoresFile) {
            let loaded = try JSONDecoder().decode(Recording.self, from: Data(contentsOf: URL(fileURLWithPath: scoresFile)))
            guard loaded.model == Self.identity(of: model) else {
                throw BenchmarkError("\(scoresFile) holds the scores of \(loaded.model), not \(Self.identity(of: model))")
            }
            reference = loaded
            other = loaded
        } else {
            reference = Recording(build: build, cpu: Self.cpu(), model: Self.identity(of: model), prompts: [], replies: [], ids: [],
                                  logits: [])
            for topic in Self.topics {
                let prompt = try model.tokenize("Write a long, detailed text about \(topic).\n\n", addSpecial: true)
                var ids: [[Int32]] = []
                var logits: [[Float]] = []
                let reply = try evaluate(backend, prompt: prompt, reply: nil, batched: false) { _, scores in
                    let best = TopScores.best(Self.compared, of: scores, count: model.facts.vocabularySize)
                    ids.append(best.map(\.id))
                    logits.append(best.map(\.logit))
                }
                reference.prompts.append(prompt)
                reference.replies.append(reply)
                reference.ids.append(ids)
                reference.logits.append(logits)
            }
        }
        var result = Result(positions: 0, batch: Drift(), build: build)
        for text in reference.prompts.indices {
            let compare = { (drift: inout Drift, position: Int, scores: UnsafePointer<Float>) in
                let ids = reference.ids[text][position]
                let logits = reference.logits[text][position]
                drift.differences.append(zip(ids, logits).map { abs(scores[Int($0)] - $1) }.max() ?? 0)
                let best = TopScores.best(1, of: scores, count: model.facts.vocabularySize)[0]
                if best.id != ids[0] { drift.flips.append(best.logit - scores[Int(ids[0])]) }
            }
            let tokens = reference.replies[text]
            if other != nil {
                var drift = result.otherBuild ?? Drift()
                _ = try evaluate(backend, prompt: reference.prompts[text], reply: tokens, batched: false) { compare(&drift, $0, $1) }
                result.otherBuild = drift
            }
            // Against this build's single-token scores: with a file, evaluated again here.
            var single: [[Float]] = []
            _ = try evaluate(backend, prompt: reference.prompts[text], reply: tokens, batched: false) { _, scores in
                single.append(Array(UnsafeBufferPointer(start: scores, count: model.facts.vocabularySize)))
            }
            _ = try evaluate(backend, prompt: reference.prompts[text], reply: tokens, batched: true) { position, scores in
                let alone = single[position]
                let best = TopScores.best(Self.compared, of: alone, count: alone.count)
                result.batch.differences.append(best.map { abs(scores[Int($0.id)] - $0.logit) }.max() ?? 0)
                let batchBest = TopScores.best(1, of: scores, count: model.facts.vocabularySize)[0]
                if batchBest.id != best[0].id { result.batch.flips.append(batchBest.logit - scores[Int(best[0].id)]) }
            }
        }
        result.positions = result.batch.differences.count
        if let other {
            result.otherBuildName = other.build
            result.otherCPU = other.cpu
        } else if let scoresFile {
            try JSONEncoder().encode(reference).write(to: URL(fileURLWithPath: scoresFile), options: .atomic)
            result.written = scoresFile
        }
        return result
    }

    /// This machine's CPU, as `/proc/cpuinfo` names it (`Intel(R) Xeon(R) Processor, family 6 model
    /// 207`); `nil` where there is no such file.
    static func cpu() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            if line.isEmpty { break }
            let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, fields[pair[0]] == nil { fields[pair[0]] = pair[1] }
        }
        guard let name = fields["model name"] else { return nil }
        return name + (fields["cpu family"].map { ", family \($0)" } ?? "") + (fields["model"].map { " model \($0)" } ?? "")
    }

    /// What a scores file says its model is: name, weights format and parameter count.
    static func identity(of model: LlamaModel) -> String {
        "\(model.facts.name), \(model.facts.quantization), \(model.facts.parameterCount) parameters"
    }

    /// Evaluates `prompt`, then the reply — `reply`'s tokens, or up to ``replyLength`` greedy ones
    /// when `nil` — one token at a time or, when `batched`, 63 per decode with every score kept;
    /// calls `read` with each reply position's scores. Returns the reply's tokens.
    private func evaluate(_ backend: LlamaBackend, prompt: [Int32], reply: [Int32]?, batched: Bool,
                          read: (Int, UnsafePointer<Float>) -> Void) throws -> [Int32]
    {
        backend.clearCache()
        backend.stopChoosingOnBackend()
        defer { backend.clearCache() }
        let context = backend.context
        var batch = llama_batch_init(Int32(max(prompt.count, LlamaBackend.forcedChunkSize)), 0, 1)
        defer { llama_batch_free(batch) }
        func decode(_ tokens: ArraySlice<Int32>, from position: Int, everyLogit: Bool) throws {
            batch.n_tokens = Int32(tokens.count)
            for (offset, token) in tokens.enumerated() {
                batch.token[offset] = token
                batch.pos[offset] = Int32(position + offset)
                batch.n_seq_id[offset] = 1
                batch.seq_id[offset]![0] = 0
                batch.logits[offset] = everyLogit || offset == tokens.count - 1 ? 1 : 0
            }
            guard llama_decode(context, batch) == 0 else { throw BenchmarkError("llama.cpp could not decode the score-drift texts") }
            let rows = tokens.indices.compactMap { index -> ScoredEntry? in
                let offset = index - tokens.startIndex
                return batch.logits[offset] == 0 ? nil : ScoredEntry(index: offset, sequence: 0, position: position + offset, token: tokens[index])
            }
            machine.perturb(rows: rows, vocabularySize: model.facts.vocabularySize) { llama_get_logits_ith(context, Int32($0)) }
        }
        try decode(prompt[...], from: 0, everyLogit: false)
        read(0, llama_get_logits_ith(context, -1)!)
        var tokens: [Int32] = []
        if let reply, batched {
            var start = 0
            // Position p's scores come from reply token p - 1.
            while start < reply.count - 1 {
                let end = min(start + LlamaBackend.forcedChunkSize, reply.count - 1)
                try decode(reply[start..<end], from: prompt.count + start, everyLogit: true)
                for index in 0..<(end - start) { read(start + index + 1, llama_get_logits_ith(context, Int32(index))!) }
                start = end
            }
            return reply
        }
        let length = reply?.count ?? Self.replyLength
        var scores = llama_get_logits_ith(context, -1)!
        while tokens.count < length {
            let next = reply?[tokens.count] ?? TopScores.best(1, of: scores, count: model.facts.vocabularySize)[0].id
            if reply == nil, model.isEndOfGeneration(next) { break }
            tokens.append(next)
            guard tokens.count < length else { break }
            try decode([next], from: prompt.count + tokens.count - 1, everyLogit: false)
            scores = llama_get_logits_ith(context, -1)!
            read(tokens.count, scores)
        }
        return tokens
    }
}

extension BenchmarkReport {
    /// The score-drift figures: within budget when the default tolerance confirms every position
    /// whose best token moved.
    func scoreDriftLines(_ drift: ScoreDriftBenchmark.Result) -> [(line: String, passed: Bool)] {
        func describe(_ figure: ScoreDriftBenchmark.Drift, _ what: String) -> (line: String, passed: Bool) {
            let within = figure.flips.allSatisfy { Double($0) <= Tolerance.standard }
            let bounds: [Float] = [0.01, 0.05, 0.1, 0.25, 0.5, 1]
            let counts = bounds.enumerated().map { index, bound in
                "≤ \(bound): \(figure.flips.count { $0 <= bound && (index == 0 || $0 > bounds[index - 1]) })"
            } + ["> 1: \(figure.flips.count { $0 > 1 })"]
            let flips = figure.flips.isEmpty ? "the best token is the same at every position"
                : "the best token differs at \(figure.flips.count), with margins " + counts.joined(separator: ", ")
            return ("score drift, \(what) (\(drift.positions) positions): scores moved at "
                + "\((figure.movedShare * 100).formatted(.number.precision(.fractionLength(1)))) % of them; largest difference "
                + "among the \(ScoreDriftBenchmark.compared) best: median \(Self.logits(figure.quantile(0.5))), 99th percentile "
                + "\(Self.logits(figure.quantile(0.99))), largest \(Self.logits(figure.quantile(1))); \(flips) → the default "
                + "tolerance (\(Tolerance.standard)) " + (within ? "confirms the other's tokens" : "does NOT confirm them all"),
                    within)
        }
        var lines = [describe(drift.batch, "batches of \(LlamaBackend.forcedChunkSize) vs one token at a time, "
                                  + Self.features(drift.build))]
        if let other = drift.otherBuild, let name = drift.otherBuildName {
            lines.append(describe(other, "\(Self.features(drift.build))\(ScoreDriftBenchmark.cpu().map { " on \($0)" } ?? "") vs "
                                  + "\(Self.features(name))\(drift.otherCPU.map { " on \($0)" } ?? ""), one token at a time"))
        }
        if let written = drift.written {
            lines.append(("score drift: this build's scores written to \(written); run `tide bench --only score-drift --scores "
                          + "\(written)` with another llama.cpp build to compare", true))
        }
        return lines
    }

    /// A score difference as the report prints it.
    static func logits(_ value: Float) -> String {
        value == 0 ? "0" : value < 0.0001 ? String(format: "%.1e", value) : String(format: "%.4f", value)
    }

    /// The CPU features llama.cpp's build uses, from its system information ("AVX2 FMA …").
    static func features(_ build: String) -> String {
        let names = build.split(separator: "|").compactMap { part -> String? in
            let pair = part.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[1] == "1" else { return nil }
            return pair[0].replacingOccurrences(of: "CPU : ", with: "")
        }
        return names.isEmpty ? "this build" : names.joined(separator: " ")
    }
}
