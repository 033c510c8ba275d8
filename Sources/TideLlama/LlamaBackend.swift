import CLlama
import Synchronization
import TideCore

/// A conversation's llama.cpp context: renders chats with the model's template and keeps the
/// KV cache of the previous turn, so a follow-up evaluates only the tokens after the common prefix.
///
/// One reply at a time; each ``ChatSession`` gets its own backend, and backends may share a
/// ``LlamaModel``.
///
/// ```swift
/// let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048))
/// let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.")
/// ```
public final class LlamaBackend: ChatBackend, @unchecked Sendable {
    // The context is used by one decoder at a time (guarded by `busy`); the rest is immutable.
    /// The model the context was made from.
    public let model: LlamaModel
    /// The template that renders prompts.
    public let template: ChatTemplate
    public let endOfGenerationStrings: [String]
    public let contextSize: Int
    public var supportsLogits: Bool { true }
    /// Not for recurrent or hybrid models, whose caches cannot drop their last tokens.
    public var supportsRewind: Bool { model.canDropCachedTokens }
    public func teacherForcingUnavailable(tolerance: Double) -> String? {
        model.teacherForcingUnavailable(threads: threads, flashAttention: flashAttention, machine: machine, tolerance: tolerance)
    }

    /// The most recorded tokens teacher forcing evaluates in one decode (``TeacherForcer/chunkSize``).
    @_spi(Benchmarks) public static let forcedChunkSize = TeacherForcer.chunkSize

    /// llama.cpp's threads: the most.
    private let threads: Int
    /// The threads each decode uses.
    private let threadShare: Mutex<ThreadShare>
    /// The CPU threads the context decodes on; freed after it.
    private let threadPool: CPUThreadPool?
    /// Whether the context uses flash attention (``LlamaContextOptions/flashAttention``).
    private let flashAttention: Bool
    /// The machine simulated (``LlamaContextOptions/machine``).
    private let machine: SimulatedMachine
    public var vocabulary: (any Vocabulary)? { model }
    public var toolCallReader: (any ToolCallReader)? { model.toolCallReader(template: template) }
    public var reasoningMarkers: ReasoningMarkers? { model.reasoningMarkers(template: template) }
    public var modelDescription: ModelDescription {
        model.description(contextSize: contextSize)
    }

    /// The llama.cpp context, for benchmarks that drive llama.cpp directly on the same state.
    @_spi(Benchmarks) public let context: OpaquePointer
    /// Constrains every token's candidates by the reply format's grammar, instead of checking the
    /// sampled token first: the alternative that benchmarks measure against.
    @_spi(Benchmarks) public var constrainsEveryToken = false
    /// Steers a reply under a format to finish within `max-tokens` (``BudgetSteerer``); off only
    /// for the benchmark that measures what it changes.
    @_spi(Benchmarks) public var steersFormatBudget = true

    /// Tokens of the shortest reply `format` allows on this model, its end included.
    @_spi(Benchmarks) public func shortestReplyTokens(_ format: ReplyFormat) -> Int? {
        BudgetSteerer.shortestReplyTokens(format, model: model)
    }
    private let batch: TokenBatch
    private let decodeThread = ThreadExecutor(name: "tide-decode")

    /// Replies run on a thread of their own: decoding blocks for milliseconds per token, which
    /// would starve Swift's small cooperative pool, and llama.cpp's thread pool works best
    /// when it is always called from the same thread.
    public var taskExecutor: (any TaskExecutor)? { decodeThread }
    private let cache = Mutex(CacheState())

    private struct CacheState {
        var kept = SequenceCache(sequence: 0)
        var busy = false
    }

    /// Creates a context for `model`.
    /// - Parameter endOfGenerationStrings: text that ends a reply like an EOS token (e.g. `<|end|>`).
    public init(model: LlamaModel, options: LlamaContextOptions = LlamaContextOptions(),
                template: ChatTemplate = .model, endOfGenerationStrings: [String] = []) throws(LlamaError)
    {
        let size = try options.checkedContextSize(for: model)
        let parameters = options.contextParameters(contextSize: size, sequences: 1)
        threads = options.resolvedThreads
        threadShare = Mutex(options.threadShare(for: model))
        threadPool = CPUThreadPool(threads: threads)
        flashAttention = options.flashAttention
        machine = options.machine
        LlamaRuntime.clearErrors()
        guard let context = llama_init_from_model(model.pointer, parameters) else {
            throw .contextFailed(contextSize: size, detail: LlamaRuntime.errors())
        }
        threadPool?.attach(to: context)
        self.model = model
        self.template = template
        self.endOfGenerationStrings = endOfGenerationStrings
        self.contextSize = Int(llama_n_ctx(context))
        self.context = context
        self.batch = TokenBatch(capacity: Int(parameters.n_batch))
    }

    deinit {
        decodeThread.shutdown()
        llama_free(context)
    }

    /// The prompt's tokens: the rendered chat (or, when `rawPrompt`, the messages as plain text),
    /// tokenized with control tokens recognised.
    public func promptTokens(for messages: [ChatMessage], rawPrompt: Bool = false) throws(LlamaError) -> [Int32] {
        try model.promptTokens(for: messages, template: rawPrompt ? .raw : template)
    }

    public func promptTokenCount(for messages: [ChatMessage], rawPrompt: Bool) async throws -> Int {
        try promptTokens(for: messages, rawPrompt: rawPrompt).count
    }

    /// Tokens currently held in the KV cache.
    public var cachedTokenCount: Int { cache.withLock { $0.kept.tokens.count } }

    /// Empties the KV cache, so the next prompt is evaluated from scratch.
    public func clearCache() {
        cache.withLock { $0.kept.clear(in: context) }
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters) async throws
        -> sending any ReplyDecoder
    {
        try start(messages, parameters: parameters, forcing: nil)
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters, forcing recorded: String) async throws
        -> sending any ReplyDecoder
    {
        try start(messages, parameters: parameters, forcing: try TeacherForcer(recorded: recorded, model: model))
    }

    /// Evaluates the prompt and returns the reply's decoder.
    private func start(_ messages: [ChatMessage], parameters: GenerationParameters, forcing forcer: TeacherForcer?) throws
        -> LlamaReplyDecoder
    {
        let prompt = try promptTokens(for: messages, rawPrompt: parameters.rawPrompt)
        guard !prompt.isEmpty else { throw LlamaError.emptyPrompt }
        let sampler = try SamplerChain(parameters, model: model, template: template, checkingSampledTokenFirst: !constrainsEveryToken,
                                       steeringBudget: steersFormatBudget)
        guard prompt.count < contextSize else {
            throw ContextOverflowError(promptTokens: prompt.count + 1, contextSize: contextSize)
        }
        let reused = try cache.withLock { state throws(ChatSessionError) -> Int in
            guard !state.busy else { throw .busy }
            state.busy = true
            return state.kept.reuseCommonPrefix(of: prompt, in: context)
        }
        do {
            try evaluate(prompt[reused...])
        } catch {
            cache.withLock { $0.busy = false }
            throw error
        }
        sampler.accept(prompt: Array(prompt), model: model)
        return LlamaReplyDecoder(backend: self, sampler: sampler, promptTokenCount: prompt.count,
                                 reusedPromptTokenCount: reused, forcer: forcer,
                                 drafter: forcer == nil && parameters.draft != .off && model.canDropCachedTokens
                                     ? Drafter(prompt: prompt, always: parameters.draft == .always, costsAreGiven: machine.checkCosts != nil,
                                               costs: { [model, threads, flashAttention, machine] in
                                                   model.draftCheckCosts(threads: threads, flashAttention: flashAttention, machine: machine)
                                               }) : nil)
    }

    /// Whether llama.cpp scores a drafted token exactly as it scores it alone, so that a reply
    /// that drafts is the same as one that does not; probed when a reply first has a draft to
    /// check, so that replies that find none never wait for the probe.
    var checksDraftsExactly: Bool { model.scoresBatchesExactly(threads: threads, flashAttention: flashAttention, machine: machine) }

    /// Tokens the context may still take.
    var room: Int { contextSize - cachedTokenCount }

    /// The most tokens one `llama_decode` takes.
    var batchCapacity: Int { batch.capacity }

    /// Evaluates tokens after those in the cache, in batches; logits are kept for the last one,
    /// or for each of them when `everyLogit` (then they must fit in one batch). On failure the
    /// cache is trimmed back to what it held before.
    func evaluate(_ tokens: ArraySlice<Int32>, everyLogit: Bool = false) throws(LlamaError) {
        precondition(!everyLogit || tokens.count <= batch.capacity, "the logits of one batch at most")
        let start = cache.withLock { $0.kept.tokens.count }
        var position = start
        var remaining = tokens[...]
        while !remaining.isEmpty {
            let chunk = remaining.prefix(batch.capacity)
            remaining = remaining.dropFirst(chunk.count)
            batch.fill(chunk, from: position, outputs: everyLogit ? chunk.count : remaining.isEmpty ? 1 : 0)
            threadShare.withLock { $0.size(context) }
            let code = llama_decode(context, batch.batch)
            guard code == 0 else {
                cache.withLock { _ = $0.kept.truncate(to: start, in: context) }
                throw .decodeFailed(code: code)
            }
            batch.simulate(machine, in: context, vocabularySize: model.facts.vocabularySize)
            position += chunk.count
            cache.withLock { $0.kept.tokens += chunk }
        }
    }

    /// Called by the decoder when its reply ends.
    /// Drops the cached tokens from `position` on (a rewind); false if the cache cannot.
    func truncate(to position: Int) -> Bool {
        cache.withLock { $0.kept.truncate(to: position, in: context) }
    }

    func endReply() {
        cache.withLock { $0.busy = false }
    }
}
