import ArgumentParser
import Foundation
import TideChat
import TideCore
import TideFiles
import TideLlama
import TideLua
import TideMCP
import TideModels
import TideProvider
import TideReports

/// `tide models`: list, describe, fetch, and make presets of models.
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List, describe and fetch models, and make presets of them.",
        subcommands: [List.self, Info.self, Show.self, Create.self, Remove.self, Pull.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the models Tide knows: built in, remote and presets.")

        @Flag(help: "One JSON object per model: name, kind, size_bytes, installed, summary, from, url.")
        var json = false

        func run() throws {
            let store = ModelStore.standard
            let listings = ModelRegistry.entries.map { ModelListing($0, store: store) } + (try UserModels().entries.map(ModelListing.init))
            if json {
                for listing in listings { print(JSONOutput.line(listing)) }
                return
            }
            for line in ColumnText.lines([["NAME", "KIND", "SIZE", "STATUS", "DESCRIPTION"]] + listings.map(\.row)) { print(line) }
            print("\nModel files are stored in \(store.directory.path); any path to a .gguf file works too.")
            print("Remote models and presets live in \(UserModels.standardFile.path) (tide models create makes presets).")
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Describe a model: its entry, its defaults, and what its file holds.")

        @Argument(help: "A model name (built in, remote or preset) or a path to a .gguf file.")
        var model: String

        func run() throws {
            let user = try UserModels()
            let presets = try user.presets(from: model)
            let base = presets.last?.from ?? model
            for preset in presets {
                print("preset:            \(preset.name), from \(preset.from)")
            }
            print(ModelDefaultsText(try user.defaults(for: model)).lines(indent: "", labelWidth: 19).joined(separator: "\n"))
            if let remote = user.remote(named: base) {
                print("kind:              remote")
                print("server:            \(remote.url.absoluteString)")
                print("model on server:   \(remote.model)")
                print("context length:    \(remote.contextLength ?? 4096)")
                print("key from:          \(remote.apiKeyVariable ?? "TIDE_API_KEY or OPENAI_API_KEY")")
                return
            }
            let resolved = try ModelStore.standard.resolve(base)
            if let entry = resolved.entry {
                print("name:              \(entry.id)")
                print("source:            \(entry.source)")
                print("template:          \(entry.template)")
                if !entry.endOfGenerationStrings.isEmpty {
                    print("extra EOS:         \(entry.endOfGenerationStrings.joined(separator: " "))")
                }
            }
            let loaded = try LlamaModel.load(path: resolved.path, gpuLayers: try user.defaults(for: model).gpuLayers)
            let facts = loaded.facts
            print("file:              \(resolved.path)")
            print("model name:        \(facts.name)")
            print("architecture:      \(facts.architecture)")
            print("parameters:        \(facts.parameterCount.formatted())")
            print("weights:           \(Terminal.bytes(Int64(facts.weightBytes)))")
            print("quantization:      \(facts.quantization)")
            print("context length:    \(facts.trainedContextLength)")
            print("vocabulary size:   \(facts.vocabularySize)")
            let rendering = loaded.templateFamilyName.map { ", written by Tide as the \($0) family's" } ?? ", rendered by llama.cpp"
            print("chat template:     " + (facts.chatTemplate.map { "\($0.count) characters, in the file" + rendering } ?? "none in the file"))
            let template = try ChatTemplate(parsing: resolved.entry?.template ?? "model")
            let toolFormat = try user.defaults(for: model).toolFormat
            print("tool calls:        " + (toolFormat.map { "\($0) (set by its defaults)" }
                ?? "\(loaded.toolCallFormat(template: template)) (as its chat template tells)"))
            if let markers = loaded.reasoningMarkers(template: .model) {
                print("reasoning:         \(markers.open)…\(markers.close)" + (markers.openedByPrompt ? ", opened by the prompt" : ""))
            }
            print("runs on:           \(loaded.placement.description)")
            if let note = loaded.placement.note { Terminal.warn("note: " + note) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a model's defaults: system prompt, parameters and plugins (a preset's over its model's).")

        @Argument(help: "A model name (built in, remote or preset).")
        var model: String

        @Flag(help: "The defaults as JSON, in the form models.json holds them.")
        var json = false

        func run() throws {
            let user = try UserModels()
            guard user.knows(model) else { throw ModelLookupError.unknownModel(model) }
            let defaults = try user.defaults(for: model)
            if json {
                print(JSONOutput.line(defaults))
                return
            }
            let lines = ModelDefaultsText(defaults).lines(indent: "", labelWidth: 15)
            print(lines.isEmpty ? "\(model) has no defaults: Tide's apply (tide models create makes a preset with some)" : lines.joined(separator: "\n"))
        }
    }

    struct Create: ParsableCommand, TakesGenerationParameters {
        static let configuration = CommandConfiguration(
            abstract: "Make a preset: a model with its own system prompt, parameters and plugins, in models.json.",
            discussion: """
                The preset is a name like any model's: tide chat --model NAME, @model NAME in a script,
                tide serve --model NAME. Options given when it is used win over its defaults.

                Example:
                  tide models create terse --from smollm2-135m-instruct --system "Answer in one sentence." \\
                    --temperature 0.2 --plugin 'stop-after-sentences sentences=1'
                """)

        @Argument(help: "The preset's name.")
        var name: String

        @Option(help: "The model it starts from: a model name (built in, remote or another preset) or a .gguf path.")
        var from: String

        @Option(parsing: .unconditional, help: "Its system prompt (\"\" for none; default: the model's).")
        var system: String?

        @OptionGroup var sampling: SamplingOptions

        @Option(name: .customLong("plugin"),
                help: ArgumentHelp("A plugin it loads: 'NAME key=value …' (repeatable).", valueName: "spec"))
        var plugins: [String] = []

        @Option(name: .customLong("mcp"),
                help: ArgumentHelp("An MCP server whose tools it offers: '[NAME:] COMMAND ARGS…' (repeatable).", valueName: "server"))
        var mcp: [String] = []

        @Option(name: .customLong("gpu-layers"), parsing: .unconditional,
                help: "Layers it offloads to a GPU (-1: all; 0: none; default: as many as the GPU's free memory holds).")
        var gpuLayers: Int?

        @Option(name: .customLong("tool-format"),
                help: ArgumentHelp("How it calls tools: " + ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ")
                    + " (default: as its chat template tells).", valueName: "name"))
        var toolFormat: String?

        @OptionGroup var cacheTypes: KVCacheOptions

        @Flag(help: "Replace an entry of the same name.")
        var replace = false

        func run() throws {
            if let problem = gpuLayers.flatMap(ModelDescription.gpuLayersProblem) { throw ValidationError("--gpu-layers " + problem) }
            let format: ToolCallFormat?
            do {
                format = try toolFormat.map(ToolCallFormat.init(naming:))
            } catch {
                throw ValidationError("--tool-format: \(error)")
            }
            let user = try UserModels()
            guard user.knows(from) else { throw ModelLookupError.unknownModel(from) }
            if ModelStore.isPath(from), InputFile.kind(of: from) == .missing {
                throw CommandFailure("--from \(from): no such file")
            }
            for plugin in plugins { _ = try PluginSource(spec: PluginSpec(parsing: plugin)) }
            for server in mcp { _ = try MCPServerSpec(parsing: server) }
            if sampling.maxRewinds != nil { throw ValidationError("--max-rewinds is not kept in a preset") }
            if sampling.draft != nil { throw ValidationError("--draft is not kept in a preset") }
            let path = ModelStore.isPath(from) ? URL(fileURLWithPath: from).standardizedFileURL.path : from
            let preset = PresetEntry(name: name, from: path,
                                     defaults: ModelDefaults(systemPrompt: system, parameters: try sampling.settings, plugins: plugins,
                                                             mcp: mcp, gpuLayers: gpuLayers, toolFormat: format,
                                                             keyCacheType: try cacheTypes.keyType, valueCacheType: try cacheTypes.valueType))
            try UserModels.save(preset, replacing: replace, in: UserModels.standardFile)
            print("created \(name) in \(UserModels.standardFile.path); chat with it: tide chat --model \(name)")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a remote model or a preset from models.json, or a built-in model's file (--files).")

        @Argument(help: "The model's name.")
        var model: String

        @Flag(help: "For a built-in model: delete its downloaded file (tide models pull fetches it again).")
        var files = false

        func run() throws {
            if let entry = ModelRegistry.entry(named: model) {
                guard files else {
                    throw CommandFailure("\(entry.id) is built into Tide; add --files to delete its downloaded file")
                }
                let path = ModelStore.standard.path(for: entry)
                guard InputFile.kind(of: path.path) != .missing else {
                    print("\(entry.id) has no downloaded file (\(path.path))")
                    return
                }
                do {
                    try FileManager.default.removeItem(at: path)
                } catch {
                    throw CommandFailure("cannot delete \(path.path): \(FileSystemFailure.reason(error))")
                }
                print("deleted \(path.path)")
                return
            }
            if files { throw CommandFailure("--files applies to built-in models; \(model) has no files of its own") }
            guard try UserModels.remove(model) else { throw ModelLookupError.unknownModel(model) }
            print("removed \(model) from \(UserModels.standardFile.path)")
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
            let puller = ModelPuller(store: .standard, requantize: ModelRequantizer.requantize)
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
                let base = try UserModels().presets(from: entry.name).last?.from
                throw CommandFailure(base.map { "\(entry.name) is a preset of \($0); pull that" }
                    ?? "\(entry.name) runs on a server; there is nothing to pull")
            } else {
                throw ModelLookupError.unknownModel(model)
            }
            bar.finish()
            print(result.path.path)
            print("sha256 \(result.sha256) " + (result.verified ? "(verified)" : "(no known checksum to verify against)"))
        }
    }
}
