import Foundation
import TideCore
import TideLlama
import TideModels

/// Weights loaded in this process, with their registry entry when the model was named.
public struct LocalModel: ChatModel {
    /// The loaded weights.
    public let weights: LlamaModel
    /// The registry entry (template, end strings, defaults); `nil` for a bare file.
    public let entry: ModelEntry?
    public let name: String
    public let defaults: ModelDefaults
    /// The machine its contexts run on: this one, unless another is simulated.
    public let machine: SimulatedMachine

    /// `weights`, as `entry` describes them, run on `machine`; `name` and `defaults` (a preset's)
    /// replace the entry's.
    public init(weights: LlamaModel, entry: ModelEntry?, name: String? = nil, defaults: ModelDefaults? = nil,
                machine: SimulatedMachine = SimulatedMachine()) {
        self.weights = weights
        self.machine = machine
        self.entry = entry
        self.name = name ?? entry?.id ?? URL(fileURLWithPath: weights.path).deletingPathExtension().lastPathComponent
        self.defaults = defaults ?? entry?.defaults ?? ModelDefaults()
    }

    public var identifier: String { weights.path }

    public func origin(in setup: ModelSetup) -> String { setup.model }

    /// `setup`'s override, else the registry's, else `model` (the file's own).
    public func templateName(for setup: ModelSetup) -> String? { setup.template ?? entry?.template ?? "model" }

    /// A llama.cpp context with the template and end strings of the registry entry.
    public func makeBackend(_ setup: ModelSetup) throws -> any ChatBackend {
        let options = contextOptions(for: setup)
        return try LlamaBackend(model: weights, options: options, template: template(for: setup),
                         endOfGenerationStrings: entry?.endOfGenerationStrings ?? [], toolFormat: toolFormat(for: setup))
    }

    /// `setup`'s context options on this model's machine, its cache types the setup's, else the
    /// defaults' (a preset's), else f16.
    func contextOptions(for setup: ModelSetup) -> LlamaContextOptions {
        var options = setup.contextOptions
        options.machine = machine
        options.keyCacheType = setup.keyCacheType ?? defaults.keyCacheType ?? .f16
        options.valueCacheType = setup.valueCacheType ?? defaults.valueCacheType ?? .f16
        return options
    }

    /// `setup`'s tool format, else the defaults' (a preset's); `nil` for the template's own.
    func toolFormat(for setup: ModelSetup) -> ToolCallFormat? { setup.toolFormat ?? defaults.toolFormat }

    /// One llama.cpp context whose sequences hold `contextSize` tokens each (default: `setup`'s,
    /// else min(4096, the model's)), never more than the model was trained on.
    public func makeBatch(_ setup: ModelSetup, sequences: Int, contextSize: Int?) throws -> (any BackendBatch)? {
        var options = contextOptions(for: setup)
        let trained = weights.facts.trainedContextLength
        options.contextSize = (contextSize ?? setup.contextSize).map { trained > 0 ? min($0, trained) : $0 }
        return LocalBatch(engine: try LlamaBatchEngine(model: weights, sequences: sequences, options: options),
                          template: try template(for: setup), endOfGenerationStrings: entry?.endOfGenerationStrings ?? [],
                          toolFormat: toolFormat(for: setup))
    }

    /// The chat template `setup` asks for.
    func template(for setup: ModelSetup) throws -> ChatTemplate {
        try ChatTemplate(parsing: templateName(for: setup) ?? "model")
    }
}
