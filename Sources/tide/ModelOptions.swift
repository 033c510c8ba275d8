import ArgumentParser
import Foundation
import TideCore
import TideLlama
import TideModels
import TideRunner

/// Options that choose a model and size its context, shared by every command that generates.
struct ModelOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "A model name (see `tide models list`) or a path to a .gguf file.")
    var model: String = ModelRegistry.defaultModelID

    @Option(help: "Chat template: `model` (the file's own), `raw` (plain text, for base models) or a llama.cpp name such as chatml, phi3, gemma, llama3.")
    var template: String?

    @Option(name: .customLong("ctx-size"), help: "Context size in tokens (default: min(4096, the model's)).")
    var contextSize: Int?

    @Option(help: "Threads for decoding (default: every core).")
    var threads: Int?

    @Option(name: .customLong("batch-size"), help: "Prompt tokens evaluated per llama_decode call.")
    var batchSize: Int = 512

    @Option(name: .customLong("gpu-layers"), help: "Layers offloaded to a GPU, for builds that have one (-1: all).")
    var gpuLayers: Int = 0

    func validate() throws {
        if let contextSize, contextSize < 16 { throw ValidationError("--ctx-size must be at least 16, not \(contextSize)") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, not \(threads)") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1, not \(batchSize)") }
        if let template, (try? ChatTemplate(parsing: template)) == nil {
            throw ValidationError("unknown --template '\(template)'; choose one of: "
                + ChatTemplate.acceptedNames.joined(separator: ", "))
        }
    }

    /// The setup these options describe.
    var setup: ModelSetup {
        ModelSetup(model: model, template: template, contextSize: contextSize, threads: threads,
                   batchSize: batchSize, gpuLayers: gpuLayers)
    }

    /// Resolves and loads the model, with a progress bar on a terminal.
    func load(from cache: ModelCache = ModelCache()) throws -> LoadedModel {
        try ModelProgress.load(setup.model, gpuLayers: gpuLayers, from: cache)
    }
}

/// Loading a model with a progress bar named after its file.
enum ModelProgress {
    static func load(_ name: String, gpuLayers: Int, from cache: ModelCache) throws -> LoadedModel {
        let label = URL(fileURLWithPath: (try? ModelStore.standard.resolve(name).path) ?? name).lastPathComponent
        let bar = ProgressBar(label: "loading \(label)")
        defer { bar.finish() }
        return try cache.load(name, gpuLayers: gpuLayers) { bar.update($0) }
    }
}
