import CLlama
import Foundation
import TideCore

/// Sentence vectors from a model, as llama.cpp pools them: an embedding model's own pooling (a
/// BERT-family encoder such as all-MiniLM-L6-v2 pools the mean of its token states), or, for a
/// chat model that names none, the mean of its last layer's states. Vectors are normalised to
/// length 1, so that a dot product is their cosine similarity.
///
/// Texts are embedded many at once: as many as fit go into one `llama_decode`, each a sequence
/// of its own (1,000 short texts take a few calls, not a thousand).
///
/// ```swift
/// let embedder = try LlamaEmbedder(model: try LlamaModel.load(path: "all-MiniLM-L6-v2.F16.gguf"))
/// let vectors = try embedder.embed(["The tide comes in.", "The sea rises."])
/// ```
public final class LlamaEmbedder: TextEmbedder, @unchecked Sendable {
    // The context is used by one call at a time (`lock`), on the embedder's own thread.
    /// The model.
    public let model: LlamaModel
    /// The most tokens one text may have: the model's trained context, at most ``batchTokens``.
    public let maximumTokens: Int
    /// The length of every vector.
    public let dimensions: Int
    private let context: OpaquePointer
    private let lock = NSLock()
    /// Where decodes run: neither on the cooperative pool, which they would hold up, nor on a
    /// batch engine's thread.
    private let thread = ThreadExecutor(name: "tide-embed", niceness: 0)
    /// Tokens per decode.
    static let batchTokens = 8192
    /// Texts per decode: llama.cpp's most sequences in one context.
    static let batchTexts = 64

    /// An embedder on `model`, decoding on `threads` threads (default: every core).
    public init(model: LlamaModel, threads: Int? = nil) throws {
        // A reranker's pooling gives a score, not a vector.
        if model.facts.pooling == "rank" || model.facts.pooling == "none" { throw EmbeddingError.noVector(model: model.path) }
        self.model = model
        let trained = Int(llama_model_n_ctx_train(model.pointer))
        maximumTokens = min(trained > 0 ? trained : Self.batchTokens, Self.batchTokens)
        dimensions = Int(llama_model_n_embd(model.pointer))
        var parameters = llama_context_default_params()
        parameters.n_ctx = UInt32(Self.batchTokens)
        parameters.n_batch = UInt32(Self.batchTokens)
        // A non-causal model reads each sequence whole, in one micro-batch.
        parameters.n_ubatch = UInt32(Self.batchTokens)
        parameters.n_seq_max = UInt32(Self.batchTexts)
        // One cache for every sequence: split per sequence, a causal model's (a chat model's)
        // part would hold n_ctx / n_seq_max tokens, and llama.cpp would split a decode into parts
        // of equal tokens per sequence, pooling a longer text over one part only.
        parameters.kv_unified = true
        parameters.embeddings = true
        // The model's own pooling; the mean for a model that names none (a chat model).
        parameters.pooling_type = model.facts.pooling != nil ? LLAMA_POOLING_TYPE_UNSPECIFIED : LLAMA_POOLING_TYPE_MEAN
        let cores = LlamaContextOptions.coreCount
        parameters.n_threads = Int32(min(threads ?? cores, cores))
        parameters.n_threads_batch = parameters.n_threads
        parameters.no_perf = true
        LlamaRuntime.clearErrors()
        guard let context = llama_init_from_model(model.pointer, parameters) else {
            throw LlamaError.contextFailed(contextSize: Self.batchTokens, detail: LlamaRuntime.errors())
        }
        self.context = context
    }

    deinit {
        thread.shutdown()
        llama_free(context)
    }

    /// The vectors of `input`, in order, each of length ``dimensions`` and norm 1. A text is read
    /// with the model's special tokens (BERT's [CLS] … [SEP]); token ids are used as given. An
    /// input of more than ``maximumTokens`` tokens is refused (``EmbeddingError``), not cut.
    public func embed(_ input: EmbeddingInput) async throws -> Embeddings {
        try await Task(executorPreference: thread) { try self.vectors(of: input) }.value
    }

    /// ``embed(_:)`` on the caller's thread.
    private func vectors(of input: EmbeddingInput) throws -> Embeddings {
        let tokenized: [[Int32]]
        switch input {
        case .texts(let texts): tokenized = try texts.map { try model.tokenize($0, addSpecial: true, parseSpecial: false) }
        case .tokens(let sequences):
            let size = model.facts.vocabularySize
            for (index, sequence) in sequences.enumerated() {
                if let token = sequence.first(where: { !(0..<Int32(size)).contains($0) }) {
                    throw EmbeddingError.unknownToken(index: index, token: token, vocabularySize: size)
                }
            }
            tokenized = sequences
        }
        for (index, tokens) in tokenized.enumerated() {
            guard !tokens.isEmpty else { throw EmbeddingError.empty(index: index) }
            guard tokens.count <= maximumTokens else {
                throw EmbeddingError.tooLong(index: index, tokens: tokens.count, limit: maximumTokens)
            }
        }
        lock.lock()
        defer { lock.unlock() }
        var vectors: [[Float]] = []
        vectors.reserveCapacity(tokenized.count)
        var start = 0
        while start < tokenized.count {
            var end = start
            var tokens = 0
            while end < tokenized.count, end - start < Self.batchTexts, tokens + tokenized[end].count <= Self.batchTokens {
                tokens += tokenized[end].count
                end += 1
            }
            vectors += try decode(tokenized[start..<end])
            start = end
        }
        return Embeddings(vectors: vectors, tokens: tokenized.reduce(0) { $0 + $1.count })
    }

    /// The `llama_decode` calls made so far, for benchmarks and tests.
    public private(set) var decodeCalls = 0

    /// One decode of `texts`, each a sequence, and their pooled vectors.
    private func decode(_ texts: ArraySlice<[Int32]>) throws -> [[Float]] {
        let count = texts.reduce(0) { $0 + $1.count }
        var batch = llama_batch_init(Int32(max(count, 1)), 0, 1)
        defer { llama_batch_free(batch) }
        for (sequence, tokens) in texts.enumerated() {
            for (position, token) in tokens.enumerated() {
                let index = Int(batch.n_tokens)
                batch.token[index] = token
                batch.pos[index] = Int32(position)
                batch.n_seq_id[index] = 1
                batch.seq_id[index]![0] = Int32(sequence)
                batch.logits[index] = 1
                batch.n_tokens += 1
            }
        }
        if let memory = llama_get_memory(context) { llama_memory_clear(memory, true) }
        decodeCalls += 1
        let status = llama_decode(context, batch)
        guard status == 0 else { throw LlamaError.decodeFailed(code: status) }
        return try texts.indices.map { offset in
            let sequence = Int32(offset - texts.startIndex)
            guard let pooled = llama_get_embeddings_seq(context, sequence) else {
                throw EmbeddingError.noVector(model: model.path)
            }
            let vector = Array(UnsafeBufferPointer(start: pooled, count: dimensions))
            let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return norm > 0 ? vector.map { $0 / norm } : vector
        }
    }
}
