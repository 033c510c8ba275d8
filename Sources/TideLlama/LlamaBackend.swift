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
    public var vocabulary: (any Vocabulary)? { model }
    public var modelDescription: ModelDescription {
        ModelDescription(name: model.facts.name, backend: "llama.cpp", architecture: model.facts.architecture,
                         contextSize: contextSize, trainedContextLength: model.facts.trainedContextLength,
                         vocabularySize: model.facts.vocabularySize)
    }

    /// The llama.cpp context, for benchmarks that drive llama.cpp directly on the same state.
    @_spi(Benchmarks) public let context: OpaquePointer
    private let batch: TokenBatch
    private let decodeThread = ThreadExecutor(name: "tide-decode")

    /// Replies run on a thread of their own: decoding blocks for milliseconds per token, which
    /// would starve Swift's small cooperative pool, and llama.cpp's thread pool works best
    /// when it is always called from the same thread.
    public var taskExecutor: (any TaskExecutor)? { decodeThread }
    private let cache = Mutex(CacheState())

    private struct CacheState {
        /// The tokens whose keys and values are in the context, position by position.
        var tokens: [Int32] = []
        var busy = false
    }

    /// Creates a context for `model`.
    /// - Parameter endOfGenerationStrings: text that ends a reply like an EOS token (e.g. `<|end|>`).
    public init(model: LlamaModel, options: LlamaContextOptions = LlamaContextOptions(),
                template: ChatTemplate = .model, endOfGenerationStrings: [String] = []) throws(LlamaError)
    {
        let size = options.resolvedContextSize(trainedLength: model.facts.trainedContextLength)
        var parameters = llama_context_default_params()
        parameters.n_ctx = UInt32(size)
        parameters.n_batch = UInt32(min(options.batchSize, size))
        parameters.n_ubatch = parameters.n_batch
        parameters.n_seq_max = 1
        parameters.n_threads = Int32(options.resolvedThreads)
        parameters.n_threads_batch = Int32(options.resolvedThreads)
        parameters.no_perf = true
        LlamaRuntime.clearErrors()
        guard let context = llama_init_from_model(model.pointer, parameters) else {
            throw .contextFailed(contextSize: size, detail: LlamaRuntime.errors())
        }
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

    /// The prompt's tokens: the rendered chat, tokenized with control tokens recognised.
    public func promptTokens(for messages: [ChatMessage]) throws(LlamaError) -> [Int32] {
        try model.tokenize(model.renderPrompt(messages, template: template), addSpecial: true, parseSpecial: true)
    }

    public func promptTokenCount(for messages: [ChatMessage]) async throws -> Int {
        try promptTokens(for: messages).count
    }

    /// Tokens currently held in the KV cache.
    public var cachedTokenCount: Int { cache.withLock { $0.tokens.count } }

    /// Empties the KV cache, so the next prompt is evaluated from scratch.
    public func clearCache() {
        cache.withLock { state in
            llama_memory_clear(llama_get_memory(context), true)
            state.tokens.removeAll()
        }
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters) async throws
        -> sending any ReplyDecoder
    {
        let prompt = try promptTokens(for: messages)
        guard prompt.count < contextSize else {
            throw ContextOverflowError(promptTokens: prompt.count + 1, contextSize: contextSize)
        }
        let reused = try cache.withLock { state throws(ChatSessionError) -> Int in
            guard !state.busy else { throw .busy }
            state.busy = true
            return reuseCommonPrefix(of: prompt, state: &state)
        }
        do {
            try evaluate(prompt[reused...])
        } catch {
            cache.withLock { $0.busy = false }
            throw error
        }
        let sampler = SamplerChain(parameters, vocabularySize: model.facts.vocabularySize)
        sampler.accept(prompt.suffix(parameters.repeatLastN))
        return LlamaReplyDecoder(backend: self, sampler: sampler, promptTokenCount: prompt.count,
                                 reusedPromptTokenCount: reused)
    }

    /// Keeps the longest cached prefix shared with `prompt` (leaving at least the last prompt
    /// token to evaluate, for its logits) and drops the rest. Returns how many tokens were kept.
    private func reuseCommonPrefix(of prompt: [Int32], state: inout CacheState) -> Int {
        var shared = zip(state.tokens, prompt).prefix { $0 == $1 }.count
        shared = min(shared, prompt.count - 1)
        let memory = llama_get_memory(context)
        if !llama_memory_seq_rm(memory, 0, Int32(shared), -1) {
            // Some caches (recurrent or sliding-window) cannot drop a tail; start afresh.
            llama_memory_clear(memory, true)
            shared = 0
        }
        state.tokens.removeSubrange(shared...)
        return shared
    }

    /// Whether there is room in the context for one more token.
    var hasRoom: Bool { cache.withLock { $0.tokens.count < contextSize } }

    /// Evaluates tokens after those in the cache, in batches; logits are kept for the last one.
    /// On failure the cache is trimmed back to what it held before.
    func evaluate(_ tokens: ArraySlice<Int32>) throws(LlamaError) {
        let start = cache.withLock { $0.tokens.count }
        var position = start
        var remaining = tokens[...]
        while !remaining.isEmpty {
            let chunk = remaining.prefix(batch.capacity)
            remaining = remaining.dropFirst(chunk.count)
            batch.fill(chunk, from: position, wantLastLogits: remaining.isEmpty)
            let code = llama_decode(context, batch.batch)
            guard code == 0 else {
                llama_memory_seq_rm(llama_get_memory(context), 0, Int32(start), -1)
                cache.withLock { $0.tokens.removeSubrange(start...) }
                throw .decodeFailed(code: code)
            }
            position += chunk.count
            cache.withLock { $0.tokens += chunk }
        }
    }

    /// Called by the decoder when its reply ends.
    func endReply() {
        cache.withLock { $0.busy = false }
    }
}

/// A reusable `llama_batch` for one sequence.
private final class TokenBatch {
    private(set) var batch: llama_batch
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        batch = llama_batch_init(Int32(capacity), 0, 1)
    }

    deinit { llama_batch_free(batch) }

    func fill(_ tokens: ArraySlice<Int32>, from position: Int, wantLastLogits: Bool) {
        batch.n_tokens = Int32(tokens.count)
        for (offset, token) in tokens.enumerated() {
            batch.token[offset] = token
            batch.pos[offset] = Int32(position + offset)
            batch.n_seq_id[offset] = 1
            batch.seq_id[offset]![0] = 0
            batch.logits[offset] = 0
        }
        batch.logits[tokens.count - 1] = wantLastLogits ? 1 : 0
    }
}
