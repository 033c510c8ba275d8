import ArgumentParser
import Foundation
import TideLlama
import TideModels

/// `tide models`: list, describe and fetch models.
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List, describe and fetch models.",
        subcommands: [List.self, Info.self, Pull.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the models Tide knows, and which are installed.")

        func run() throws {
            let store = ModelStore.standard
            let remote = try UserModels().entries.map { entry in
                [entry.name, "-", "remote", "\(entry.model) on \(entry.url.absoluteString)"]
            }
            let rows = ModelRegistry.entries.map { entry in
                [entry.id, entry.sizeBytes.map(Terminal.bytes) ?? "?", store.isInstalled(entry) ? "installed" : "-",
                 entry.summary]
            } + remote
            let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                print(zip(row, widths + [0]).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }
                    .joined(separator: "  "))
            }
            print("\nModels are stored in \(store.directory.path). Any path to a .gguf file works too.")
            print("Remote models are listed in \(UserModels.standardFile.path); --remote URL reaches any server.")
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Describe a model: registry entry and what the file holds.")

        @Argument(help: "A model name or a path to a .gguf file.")
        var model: String

        func run() throws {
            let resolved = try ModelStore.standard.resolve(model)
            if let entry = resolved.entry {
                print("name:              \(entry.id)")
                print("source:            \(entry.source)")
                print("template:          \(entry.template)")
                if !entry.endOfGenerationStrings.isEmpty {
                    print("extra EOS:         \(entry.endOfGenerationStrings.joined(separator: " "))")
                }
                print("system prompt:     " + (entry.defaultSystemPrompt.isEmpty ? "(none)" : entry.defaultSystemPrompt))
            }
            let facts = try LlamaModel.load(path: resolved.path).facts
            print("file:              \(resolved.path)")
            print("model name:        \(facts.name)")
            print("architecture:      \(facts.architecture)")
            print("parameters:        \(facts.parameterCount.formatted())")
            print("weights:           \(Terminal.bytes(Int64(facts.weightBytes)))")
            print("quantization:      \(facts.quantization)")
            print("context length:    \(facts.trainedContextLength)")
            print("vocabulary size:   \(facts.vocabularySize)")
            print("chat template:     " + (facts.chatTemplate.map { "\($0.count) characters, in the file" } ?? "none in the file"))
        }
    }

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch a model by name, or any GGUF by URL (resumes a partial download).")

        @Argument(help: "A model name from `tide models list`, or an http(s) URL.")
        var model: String

        @Option(help: "The expected SHA-256 of a file fetched by URL.")
        var sha256: String?

        func run() async throws {
            let puller = ModelPuller(store: .standard)
            let bar = ProgressBar(label: "pulling \(model)")
            let report: @Sendable (FetchProgress) -> Void = { progress in
                let detail = Terminal.bytes(progress.received) + (progress.total.map { " of " + Terminal.bytes($0) } ?? "")
                bar.update(progress.total.map { Double(progress.received) / Double(max($0, 1)) } ?? 0, detail: detail)
            }
            let result: ModelPuller.Result
            if let url = URL(string: model), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                result = try await puller.pull(url: url, sha256: sha256, progress: report)
            } else if let entry = ModelRegistry.entry(named: model) {
                result = try await puller.pull(entry, progress: report)
            } else if let entry = try UserModels().entry(named: model) {
                throw ValidationError("\(entry.name) runs on \(entry.url.absoluteString); there is nothing to pull")
            } else {
                throw ModelLookupError.unknownModel(model)
            }
            bar.finish()
            print(result.path.path)
            print("sha256 \(result.sha256) " + (result.verified ? "(verified)" : "(no known checksum to verify against)"))
        }
    }
}
