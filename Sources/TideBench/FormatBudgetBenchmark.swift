import Foundation
import TideCore
import TideFormat
import TideLlama

/// Replies under a schema that must finish within a budget: for each schema fixture of the
/// repository (`Tests/TideFormatTests/Fixtures/Schemas`, when run from it), the greedy reply's
/// length with room to spare, then the same reply with `max-tokens` cut to 60% of that length,
/// without budget steering and with it; a reply counts when it ends by itself and its JSON
/// validates against the schema.
struct FormatBudgetBenchmark {
    let model: LlamaModel
    let threads: Int?
    /// Where the fixtures are, relative to the current directory.
    static let fixtures = "Tests/TideFormatTests/Fixtures/Schemas"
    /// The share of the free reply's length that `max-tokens` is cut to.
    static let share = 0.6

    struct Result: Sendable {
        var schemas: Int
        /// Schemas whose reply with room to spare was valid (the others are not counted).
        var measured: Int
        var validWithout: Int
        var validWith: Int
        /// Replies steering changed, and the tokens it set aside in all.
        var steeredReplies: Int
        var steeredTokens: Int
        /// Fixtures whose cut reply stayed invalid with steering: name and why.
        var failures: [String]
        /// Of those, the ones whose budget is below the shortest reply their schema allows.
        var impossible: Int
    }

    /// `nil` when not run from the repository (no fixtures).
    func run() async throws -> Result? {
        let folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(Self.fixtures)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
        let files = names.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".valid.json") && !$0.hasSuffix(".invalid.json") }.sorted()
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        var result = Result(schemas: files.count, measured: 0, validWithout: 0, validWith: 0, steeredReplies: 0, steeredTokens: 0,
                            failures: [], impossible: 0)
        for file in files {
            let path = folder.appendingPathComponent(file).path
            let format = try ReplyFormat.reading(.jsonSchema, file: path)
            let schema = try JSONSchema(JSONValue(parsing: format.definition))
            let subject = file.dropFirst(3).dropLast(5).replacingOccurrences(of: "-", with: " ")
            let prompt = "Write an example \(subject) as JSON."
            func reply(maxTokens: Int, steering: Bool) async throws -> (valid: Bool, reply: CollectedReply) {
                backend.clearCache()
                backend.steersFormatBudget = steering
                var parameters = GenerationParameters()
                parameters.temperature = 0
                parameters.repeatPenalty = 1.1
                parameters.maxTokens = maxTokens
                parameters.format = format
                let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
                let collected = try await session.reply(to: prompt).collect()
                let valid = collected.summary?.stopReason == .endOfGeneration
                    && (try? JSONValue(parsing: collected.text)).map { schema.violations(of: $0).isEmpty } == true
                return (valid, collected)
            }
            let free = try await reply(maxTokens: 768, steering: false)
            guard free.valid, let length = free.reply.summary?.statistics.generatedTokens else { continue }
            result.measured += 1
            let budget = max(1, Int(Double(length) * Self.share))
            if try await reply(maxTokens: budget, steering: false).valid { result.validWithout += 1 }
            let steered = try await reply(maxTokens: budget, steering: true)
            if steered.valid {
                result.validWith += 1
            } else {
                let shortest = backend.shortestReplyTokens(format)
                if let shortest, shortest > budget { result.impossible += 1 }
                result.failures.append("\(file) (\(budget) of \(length) tokens; the shortest valid reply takes "
                    + "\(shortest.map(String.init) ?? "?")): \(steered.reply.text.suffix(60))")
            }
            if let steering = steered.reply.summary?.statistics.steering {
                result.steeredReplies += 1
                result.steeredTokens += steering.tokens
            }
        }
        backend.steersFormatBudget = true
        return result
    }
}
