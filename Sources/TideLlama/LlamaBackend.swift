import CLlama
import Synchronization
import TideCore

/// A conversation on one sequence of a ``LlamaBatchEngine``: renders chats with the model's
/// template and keeps the KV cache of the previous turn, so a follow-up evaluates only the tokens
/// after the common prefix. Its replies are decoded by the one decoder (``LlamaReplyDecoder``),
/// whether the sequence is alone in its context or one of many in a batch.
///
/// `LlamaBackend(model:options:)` makes a context of its own: an engine of one sequence, which the
/// backend ends with itself. ``LlamaBatchEngine/makeBackend(template:endOfGenerationStrings:toolFormat:contextSize:)``
/// gives backends that share one context. One reply at a time; each ``ChatSession`` gets its own
/// backend, and backends may share a ``LlamaModel``.
///
/// ```swift
/// let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048))
/// let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.")
/// ```
public final class LlamaBackend: ChatBackend, @unchecked Sendable {
    // The cache state is guarded by its mutex; the benchmark switches are set before replies;
    // the rest is immutable.
    /// The engine whose context holds this sequence.
    public let engine: LlamaBatchEngine
    /// The sequence id in the engine's context.
    let sequence: Int32
    /// Whether the engine was made for this backend alone, and ends with it.
    private let ownsEngine: Bool
    /// The template that renders prompts.
    public let template: ChatTemplate
    public let endOfGenerationStrings: [String]
    public let contextSize: Int
    /// The model the context was made from.
    public var model: LlamaModel { engine.model }
    public var supportsLogits: Bool { true }
    /// Not for recurrent or hybrid models, whose caches cannot drop their last tokens.
    public var supportsRewind: Bool { model.canDropCachedTokens }
    public func teacherForcingUnavailable(tolerance: Double) -> String? {
        model.teacherForcingUnavailable(threads: engine.threads, kernel: engine.kernel, machine: engine.machine,
                                        tolerance: tolerance)
    }
    public var vocabulary: (any Vocabulary)? { model }
    /// How the model is offered tools and writes its calls: chosen once, when the backend is made.
    public let toolCallFormat: ToolCallFormat
    /// The reader of ``toolCallFormat``, made once.
    private let reader: any ToolCallReader
    public var toolCallReader: (any ToolCallReader)? { reader }
    public var reasoningMarkers: ReasoningMarkers? { model.reasoningMarkers(template: template) }
    /// Replies run on the engine's thread, between its decoding steps: decoding blocks for
    /// milliseconds per token, which would starve Swift's small cooperative pool, and llama.cpp's
    /// thread pool works best when it is always called from the same thread.
    public var taskExecutor: (any TaskExecutor)? { engine }
    public var modelDescription: ModelDescription {
        model.description(contextSize: contextSize)
    }

    /// The most recorded tokens teacher forcing evaluates in one decode (``TeacherForcer/chunkSize``).
    public static let forcedChunkSize = TeacherForcer.chunkSize
    /// The llama.cpp context, for code that drives llama.cpp's C API directly on the same state
    /// (sequence 0 of a backend made with a context of its own; the bare baselines of `tide bench`).
    public var context: OpaquePointer { engine.context }
    /// Constrains every token's candidates by the reply format's grammar, instead of checking the
    /// sampled token first: the alternative that benchmarks measure against.
    public var constrainsEveryToken = false
    /// Which replies alone in their context that read no scores have llama.cpp choose each token,
    /// or its few candidates, in its graph (``LlamaReplyDecoder``, ``GraphChoice``): those where it
    /// saves work, unless benchmarks and tests ask for all or none.
    public var graphChoices = GraphChoicePolicy.whereTheyPay
    /// Stops choosing this sequence's tokens in llama.cpp's graph before a benchmark decodes it
    /// with llama.cpp alone; the next reply that may starts again.
    public func stopChoosingOnBackend() { engine.stopSamplingOnBackend(sequence) }
    /// Steers a reply under a format to finish within `max-tokens` (``BudgetSteerer``); off only
    /// for the benchmark that measures what it changes.
    public var steersFormatBudget = true

    /// Tokens of the shortest reply `format` allows on this model, its end included.
    public func shortestReplyTokens(_ format: ReplyFormat) -> Int? {
        BudgetSteerer.shortestReplyTokens(format, model: model)
    }

    let cache: Mutex<State>
    /// Where the states after long prompts are kept and loaded from (``PromptStates``); `nil` for nowhere.
    private let promptStateStore = Mutex<(any PromptStateStore)?>(nil)
    var promptStates: (any PromptStateStore)? { promptStateStore.withLock { $0 } }

    /// Keeps the states after long prompts in `store`, and loads a prompt's start from there; not
    /// for a model whose cache cannot drop tokens (recurrent or hybrid), whose loaded state could
    /// not be cut to a prompt's shared start.
    public func keepPromptStates(in store: any PromptStateStore) {
        guard model.canDropCachedTokens else { return }
        promptStateStore.withLock { $0 = store }
    }
    /// The prompt counted last, so that the reply that follows the count does not render and
    /// tokenize it a second time.
    private let counted = Mutex<(messages: [ChatMessage], rawPrompt: Bool, tokens: [Int32])?>(nil)

    struct State {
        var kept: SequenceCache
        var busy = false
    }

    /// A context of its own for `model` (an engine of one sequence).
    /// - Parameters:
    ///   - endOfGenerationStrings: text that ends a reply like an EOS token (e.g. `<|end|>`).
    ///   - toolFormat: how the model calls tools; `nil` for the format `template` tells.
    public convenience init(model: LlamaModel, options: LlamaContextOptions = LlamaContextOptions(),
                            template: ChatTemplate = .model, endOfGenerationStrings: [String] = [],
                            toolFormat: ToolCallFormat? = nil) throws(LlamaError)
    {
        let engine = try LlamaBatchEngine(model: model, sequences: 1, options: options)
        self.init(engine: engine, sequence: try engine.takeSequence(), template: template,
                  endOfGenerationStrings: endOfGenerationStrings, toolFormat: toolFormat, contextSize: engine.contextSizePerSequence,
                  ownsEngine: true)
    }

    init(engine: LlamaBatchEngine, sequence: Int32, template: ChatTemplate, endOfGenerationStrings: [String],
         toolFormat: ToolCallFormat?, contextSize: Int, ownsEngine: Bool = false)
    {
        self.engine = engine
        self.sequence = sequence
        self.ownsEngine = ownsEngine
        self.template = template
        toolCallFormat = toolFormat ?? engine.model.toolCallFormat(template: template)
        reader = toolCallFormat.reader
        self.endOfGenerationStrings = endOfGenerationStrings
        self.contextSize = contextSize
        cache = Mutex(State(kept: SequenceCache(sequence: sequence)))
    }

    deinit {
        engine.release(sequence)
        if ownsEngine { engine.shutdown() }
    }

    /// The prompt's tokens: the rendered chat (or, when `rawPrompt`, the messages as plain text),
    /// tokenized with control tokens recognised.
    public func promptTokens(for messages: [ChatMessage], rawPrompt: Bool = false) throws(LlamaError) -> [Int32] {
        try model.promptTokens(for: messages, template: rawPrompt ? .raw : template, toolFormat: toolCallFormat)
    }

    public func promptTokenCount(for messages: [ChatMessage], rawPrompt: Bool) async throws -> Int {
        let tokens = try await renderedPrompt(messages, rawPrompt: rawPrompt)
        counted.withLock { $0 = (messages, rawPrompt, tokens) }
        return tokens.count
    }

    /// The prompt's tokens, each as four little-endian bytes.
    public func promptFingerprint(for messages: [ChatMessage], rawPrompt: Bool) async throws -> [UInt8] {
        let tokens = try await renderedPrompt(messages, rawPrompt: rawPrompt)
        counted.withLock { $0 = (messages, rawPrompt, tokens) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tokens.count * 4)
        for token in tokens { withUnsafeBytes(of: token.littleEndian) { bytes += $0 } }
        return bytes
    }

    /// Tokens currently held in the KV cache.
    public var cachedTokenCount: Int { cache.withLock { $0.kept.tokens.count } }

    /// Copies the cache of `source`, a backend of the same engine, on the engine's thread (which
    /// alone touches the context): a task there, so as not to block the caller's thread while a
    /// step runs. Not for a model whose cache cannot drop tokens (recurrent or hybrid), where a
    /// shared prompt's last token could not be evaluated again.
    public func copyCache(of source: any ChatBackend) async {
        guard let source = source as? LlamaBackend, source !== self, source.engine === engine, model.canDropCachedTokens else { return }
        await Task(executorPreference: engine) { [self] in
            engine.perform { [self] context in
                let held = source.cache.withLock { $0.kept }
                cache.withLock { state in
                    guard !state.busy else { return }
                    state.kept.copy(held, in: context)
                }
            }
        }.value
    }

    /// Empties the KV cache, so the next prompt is evaluated from scratch. Returns once the
    /// context has dropped the tokens.
    public func clearCache() {
        engine.perform { [self] context in cache.withLock { $0.kept.clear(in: context) } }
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters) async throws
        -> sending any ReplyDecoder
    {
        try await start(messages, parameters: parameters, forcing: nil)
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters, forcing recorded: String) async throws
        -> sending any ReplyDecoder
    {
        try await start(messages, parameters: parameters, forcing: try TeacherForcer(recorded: recorded, model: model))
    }

    /// The reply's decoder, its prompt to be evaluated in its first step.
    private func start(_ messages: [ChatMessage], parameters: GenerationParameters, forcing forcer: TeacherForcer?) async throws
        -> LlamaReplyDecoder
    {
        let countedTokens = counted.withLock { counted in
            defer { counted = nil }
            return counted
        }.flatMap { $0.messages == messages && $0.rawPrompt == parameters.rawPrompt ? $0.tokens : nil }
        // What the reply needs before its first step — its prompt's tokens, and its sampler chain
        // (DRY reads the whole vocabulary for each sequence breaker, a text's bias is tokenized, a
        // format's grammar compiled) — is made off the engine's thread, which would otherwise
        // hold up every other sequence's next step meanwhile.
        let (whole, kept, sampler) = try await onPromptThread { [self] in
            let prompt = try countedTokens ?? promptTokens(for: messages, rawPrompt: parameters.rawPrompt)
            guard !prompt.isEmpty else { throw LlamaError.emptyPrompt }
            try Task.checkCancellation()
            let kept = parameters.shiftsContext ? try keptTokenCount(of: prompt, messages: messages, rawPrompt: parameters.rawPrompt) : 0
            return (prompt, kept, PreparedSampler(try ReplySampler(parameters, model: model, toolCalls: reader,
                                                                   checkingSampledTokenFirst: !constrainsEveryToken,
                                                                   steeringBudget: steersFormatBudget)))
        }
        // Under a context shift, the prompt is the window of the conversation that fits with
        // room for the answer.
        let window = try parameters.shiftsContext ? contextWindow(promptLength: whole.count, kept: kept, parameters: parameters) : nil
        let prompt = window?.tokens(of: whole) ?? whole
        guard prompt.count < contextSize else {
            throw ContextOverflowError(promptTokens: prompt.count + 1, contextSize: contextSize)
        }
        // The shared prefix is counted now; the cache is shifted and trimmed on the engine's
        // thread, which alone touches the context.
        let (reused, shift) = try cache.withLock { state throws(ChatSessionError) -> (Int, CacheShift?) in
            guard !state.busy else { throw .busy }
            state.busy = true
            let shift = window.flatMap { CacheShift(to: $0, from: state.kept.window) }
            let held = shift?.tokens(after: state.kept.tokens) ?? state.kept.tokens
            return (min(zip(held, prompt).prefix { $0 == $1 }.count, prompt.count - 1), shift)
        }
        sampler.value.chain.accept(prompt: prompt, model: model)
        let drafter = forcer == nil && parameters.draft != .off && model.canDropCachedTokens
            ? Drafter(prompt: prompt, always: parameters.draft == .always, costsAreGiven: engine.machine.checkCosts != nil,
                      exact: { [engine] in engine.scoresBatchesExactly },
                      costs: { [engine] in
                          engine.model.draftCheckCosts(threads: engine.threads, kernel: engine.kernel,
                                                       machine: engine.machine)
                      }) : nil
        return LlamaReplyDecoder(backend: self, sampler: sampler.value, prompt: prompt, reused: reused, forcer: forcer, drafter: drafter,
                                 window: window, shift: shift)
    }

    /// Why the context cannot shift here, or `nil` when it can.
    public var contextShiftUnavailable: String? {
        if !model.canDropCachedTokens { return "its cache cannot drop tokens (a recurrent or hybrid model)" }
        if !engine.canShift { return "llama.cpp cannot move its cache's positions" }
        return nil
    }

    /// The window of a prompt of `promptLength` tokens whose first `kept` stay, with room for the
    /// answer (``ContextOverflowPolicy/answerReserve(parameters:contextSize:)``).
    private func contextWindow(promptLength: Int, kept: Int, parameters: GenerationParameters) throws(ContextOverflowError)
        -> ContextWindow
    {
        let reserve = ContextOverflowPolicy.answerReserve(parameters: parameters, contextSize: contextSize)
        guard let window = ContextWindow(length: promptLength, kept: kept, room: contextSize - reserve) else {
            throw ContextOverflowError(promptTokens: kept + 1 + reserve, contextSize: contextSize)
        }
        return window
    }

    /// How many of `prompt`'s first tokens a context shift keeps: those of the system prompt
    /// (where the prompt of the leading system messages alone leaves it), else the BOS token.
    private func keptTokenCount(of prompt: [Int32], messages: [ChatMessage], rawPrompt: Bool) throws(LlamaError) -> Int {
        let system = Array(messages.prefix { $0.role == .system })
        let bos = llama_vocab_get_add_bos(model.vocab) && prompt.first == llama_vocab_bos(model.vocab) ? 1 : 0
        guard !rawPrompt, !system.isEmpty, system.count < messages.count else { return bos }
        let alone = try promptTokens(for: system)
        return max(bos, min(zip(alone, prompt).prefix { $0 == $1 }.count, prompt.count - 1))
    }

    /// The prompt's tokens, rendered and tokenized on the engine's prompt thread (``onPromptThread(_:)``).
    private func renderedPrompt(_ messages: [ChatMessage], rawPrompt: Bool) async throws -> [Int32] {
        try await onPromptThread { [self] in try promptTokens(for: messages, rawPrompt: rawPrompt) }
    }

    /// Runs `work` on one of the engine's prompt threads: replies run on the engine's thread, and
    /// work that one request needs before its first step (a long prompt's tokens, a sampler
    /// chain) would hold up every sequence's next step there. A request stopped meanwhile (its
    /// client left, the server stops) stops waiting at once, and work still queued does not
    /// start; work already running ends on its own and its result is dropped. (A task of its
    /// own, because a preference alone moves a task only at its next suspension, and tokenizing
    /// has none.)
    private func onPromptThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        let waiting = WaitingCaller<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { caller in
                guard waiting.wait(caller) else { return }
                Task(executorPreference: engine.promptThreads) {
                    waiting.resume(with: waiting.isWaiting ? Result { try work() } : .failure(CancellationError()))
                }
            }
        } onCancel: {
            waiting.resume(with: .failure(CancellationError()))
        }
    }

    /// Called by the decoder when its reply ends.
    func endReply() {
        cache.withLock { $0.busy = false }
    }
}

/// A reply's sampler made on the prompt thread and handed, once, to the reply that uses it.
private struct PreparedSampler: @unchecked Sendable {
    let value: ReplySampler

    init(_ value: ReplySampler) {
        self.value = value
    }
}

/// The caller waiting for work on a prompt thread, resumed once: by the work's outcome, or by a
/// cancellation that came first (then the outcome is dropped).
private final class WaitingCaller<Value: Sendable>: Sendable {
    private let state = Mutex<(caller: CheckedContinuation<Value, any Error>?, cancelled: Bool)>((nil, false))

    /// Holds `caller` until it is resumed; `false` (and `caller` resumed with a cancellation)
    /// when the cancellation came first.
    func wait(_ caller: CheckedContinuation<Value, any Error>) -> Bool {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.caller = caller }
            return state.cancelled
        }
        if cancelled { caller.resume(throwing: CancellationError()) }
        return !cancelled
    }

    /// Whether the caller still waits.
    var isWaiting: Bool { state.withLock { $0.caller != nil } }

    /// Resumes the caller with `outcome`, unless it has been resumed already; a cancellation also
    /// keeps a caller that comes later from waiting.
    func resume(with outcome: Result<Value, any Error>) {
        state.withLock { state in
            if case .failure(let error) = outcome, error is CancellationError { state.cancelled = true }
            defer { state.caller = nil }
            return state.caller
        }?.resume(with: outcome)
    }
}
