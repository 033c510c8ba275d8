import TideCore
import TideLlama

/// The sequences of a ``LlamaBatchEngine``, each a backend on one model's template.
final class LocalBatch: BackendBatch {
    let engine: LlamaBatchEngine
    let template: ChatTemplate
    let endOfGenerationStrings: [String]
    let toolFormat: ToolCallFormat?

    init(engine: LlamaBatchEngine, template: ChatTemplate, endOfGenerationStrings: [String], toolFormat: ToolCallFormat?) {
        self.engine = engine
        self.template = template
        self.endOfGenerationStrings = endOfGenerationStrings
        self.toolFormat = toolFormat
    }

    var sequenceCapacity: Int { engine.sequenceCapacity }

    var contextSizePerSequence: Int { engine.contextSizePerSequence }

    var scoresExactly: Bool { engine.scoresBatchesExactly }

    var freeSequenceCount: Int { engine.freeSequenceCount }

    /// A backend of `contextSize` tokens, at most the sequence's. Asking for more than the model
    /// allows is this backend's error alone, not the batch's.
    func makeBackend(contextSize: Int?) throws -> any ChatBackend {
        _ = try LlamaContextOptions(contextSize: contextSize).checkedContextSize(for: engine.model)
        return try engine.makeBackend(template: template, endOfGenerationStrings: endOfGenerationStrings, toolFormat: toolFormat,
                                      contextSize: contextSize)
    }

    func shutdown() { engine.shutdown() }

    var tokenizer: (any ModelTokenizer)? { LlamaTokenizer(model: engine.model, template: template, toolFormat: toolFormat) }
}
