import CLlama
import Synchronization
import TideCore

/// A conversation on one sequence of a ``LlamaBatchEngine``: a ``ChatBackend`` like
/// ``LlamaBackend`` (templates, KV-cache reuse across turns, logits hooks), whose tokens are
/// decoded in the same batch as the other sequences'.
public final class LlamaSequenceBackend: ChatBackend, @unchecked Sendable {
    // The cache state is guarded by its mutex; the rest is immutable.
    /// The engine whose context holds this sequence.
    public let engine: LlamaBatchEngine
    let sequence: Int32
    /// The template that renders prompts.
    public let template: ChatTemplate
    public let endOfGenerationStrings: [String]
    public let contextSize: Int
    public var supportsLogits: Bool { true }
    public var vocabulary: (any Vocabulary)? { engine.model }
    /// Replies run on the engine's thread, between its decoding steps.
    public var taskExecutor: (any TaskExecutor)? { engine }
    public var modelDescription: ModelDescription {
        let facts = engine.model.facts
        return ModelDescription(name: facts.name, backend: "llama.cpp", architecture: facts.architecture,
                                contextSize: contextSize, trainedContextLength: facts.trainedContextLength,
                                vocabularySize: facts.vocabularySize)
    }
    let cache: Mutex<State>

    struct State {
        var kept: SequenceCache
        var busy = false
    }

    init(engine: LlamaBatchEngine, sequence: Int32, template: ChatTemplate, endOfGenerationStrings: [String],
         contextSize: Int)
    {
        self.engine = engine
        self.sequence = sequence
        self.template = template
        self.endOfGenerationStrings = endOfGenerationStrings
        self.contextSize = contextSize
        cache = Mutex(State(kept: SequenceCache(sequence: sequence)))
    }

    deinit { engine.release(sequence) }

    public func promptTokenCount(for messages: [ChatMessage]) async throws -> Int {
        try engine.model.promptTokens(for: messages, template: template).count
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters) async throws
        -> sending any ReplyDecoder
    {
        let prompt = try engine.model.promptTokens(for: messages, template: template)
        guard prompt.count < contextSize else {
            throw ContextOverflowError(promptTokens: prompt.count + 1, contextSize: contextSize)
        }
        // The shared prefix is counted now; the cache is trimmed on the scheduler thread, which
        // alone touches the context.
        let reused = try cache.withLock { state throws(ChatSessionError) -> Int in
            guard !state.busy else { throw .busy }
            state.busy = true
            return min(zip(state.kept.tokens, prompt).prefix { $0 == $1 }.count, prompt.count - 1)
        }
        let sampler = SamplerChain(parameters, vocabularySize: engine.model.facts.vocabularySize)
        sampler.accept(prompt.suffix(parameters.repeatLastN))
        return LlamaSequenceDecoder(backend: self, sampler: sampler, prompt: prompt, reused: reused)
    }

    /// Called by the decoder when its reply ends.
    func endReply() {
        cache.withLock { $0.busy = false }
    }
}
