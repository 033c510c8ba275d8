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
    /// Not for recurrent or hybrid models, whose caches cannot drop their last tokens.
    public var supportsRewind: Bool { engine.model.canDropCachedTokens }
    public func teacherForcingUnavailable(tolerance: Double) -> String? {
        engine.model.teacherForcingUnavailable(threads: engine.threads, flashAttention: engine.flashAttention,
                                              machine: engine.machine, tolerance: tolerance)
    }
    public var vocabulary: (any Vocabulary)? { engine.model }
    public var toolCallReader: (any ToolCallReader)? { engine.model.toolCallReader(template: template) }
    public var reasoningMarkers: ReasoningMarkers? { engine.model.reasoningMarkers(template: template) }
    /// Replies run on the engine's thread, between its decoding steps.
    public var taskExecutor: (any TaskExecutor)? { engine }
    public var modelDescription: ModelDescription {
        engine.model.description(contextSize: contextSize)
    }
    let cache: Mutex<State>
    /// The prompt counted last, so that the reply that follows the count does not render and
    /// tokenize it a second time.
    private let counted = Mutex<(messages: [ChatMessage], rawPrompt: Bool, tokens: [Int32])?>(nil)

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

    public func promptTokenCount(for messages: [ChatMessage], rawPrompt: Bool) async throws -> Int {
        let tokens = try await promptTokens(for: messages, rawPrompt: rawPrompt)
        counted.withLock { $0 = (messages, rawPrompt, tokens) }
        return tokens.count
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters) async throws
        -> sending any ReplyDecoder
    {
        try await start(messages, parameters: parameters, forcing: nil)
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters, forcing recorded: String) async throws
        -> sending any ReplyDecoder
    {
        try await start(messages, parameters: parameters, forcing: try TeacherForcer(recorded: recorded, model: engine.model))
    }

    /// The reply's decoder, its prompt to be evaluated in its first step.
    private func start(_ messages: [ChatMessage], parameters: GenerationParameters, forcing forcer: TeacherForcer?) async throws
        -> LlamaSequenceDecoder
    {
        let counted = counted.withLock { counted in
            defer { counted = nil }
            return counted
        }
        let prompt: [Int32]
        if let counted, counted.messages == messages, counted.rawPrompt == parameters.rawPrompt {
            prompt = counted.tokens
        } else {
            prompt = try await promptTokens(for: messages, rawPrompt: parameters.rawPrompt)
        }
        guard !prompt.isEmpty else { throw LlamaError.emptyPrompt }
        let sampler = try SamplerChain(parameters, model: engine.model, template: template)
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
        sampler.accept(prompt: Array(prompt), model: engine.model)
        return LlamaSequenceDecoder(backend: self, sampler: sampler, prompt: prompt, reused: reused, forcer: forcer)
    }

    /// The prompt's tokens, rendered and tokenized on the engine's prompt thread: replies run on
    /// the engine's thread, and a long prompt would hold up every sequence's next step. (A task
    /// of its own, because a preference alone moves a task only at its next suspension, and
    /// tokenizing has none.)
    private func promptTokens(for messages: [ChatMessage], rawPrompt: Bool) async throws -> [Int32] {
        try await Task(executorPreference: engine.promptThread) { [engine, template] in
            try engine.model.promptTokens(for: messages, template: rawPrompt ? .raw : template)
        }.value
    }

    /// Called by the decoder when its reply ends.
    func endReply() {
        cache.withLock { $0.busy = false }
    }
}
