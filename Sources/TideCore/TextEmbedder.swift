import Synchronization

/// Turns texts into vectors that say how alike their meanings are: an embedding model, local
/// (TideLlama's `LlamaEmbedder`) or on a server (TideRemote's `RemoteEmbedder`). Script checks
/// of similarity (`expect: similar`), `tide embed` and `tide serve`'s `/v1/embeddings` use one.
public protocol TextEmbedder: Sendable {
    /// The vectors of `input`'s texts (or token sequences), in order, each normalised to length 1,
    /// with the tokens read.
    func embed(_ input: EmbeddingInput) async throws -> Embeddings
}

extension TextEmbedder {
    /// The vectors of `texts`, in order, each normalised to length 1.
    public func embed(_ texts: [String]) async throws -> [[Float]] {
        try await embed(.texts(texts)).vectors
    }
}

/// What is embedded: texts, or sequences of token ids of the model's vocabulary (used as given).
public enum EmbeddingInput: Sendable, Hashable {
    case texts([String])
    case tokens([[Int32]])

    /// How many vectors it makes.
    public var count: Int {
        switch self {
        case .texts(let texts): texts.count
        case .tokens(let sequences): sequences.count
        }
    }
}

/// Vectors, and the tokens read to make them.
public struct Embeddings: Sendable, Hashable {
    /// One a text (or token sequence), in order.
    public var vectors: [[Float]]
    /// The tokens read, all inputs together.
    public var tokens: Int

    /// Vectors made of `tokens` tokens.
    public init(vectors: [[Float]], tokens: Int) {
        self.vectors = vectors
        self.tokens = tokens
    }
}

/// Why an input could not be embedded.
public enum EmbeddingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Input number `index` (from 0) has more tokens than the model reads at once.
    case tooLong(index: Int, tokens: Int, limit: Int)
    /// Input number `index` is empty: no token to pool.
    case empty(index: Int)
    /// Input number `index` holds a token id the vocabulary does not have.
    case unknownToken(index: Int, token: Int32, vocabularySize: Int)
    /// The model pooled no vector (one llama.cpp cannot pool).
    case noVector(model: String)

    public var description: String {
        switch self {
        case .tooLong(let index, let tokens, let limit):
            "text \(index + 1) has \(tokens) tokens, over the \(limit) the model reads at once; shorten it or split it"
        case .empty(let index):
            "input \(index + 1) has no tokens to embed; leave it out"
        case .unknownToken(let index, let token, let size):
            "input \(index + 1) holds the token id \(token), which the model does not have (its ids are 0 to \(size - 1))"
        case .noVector(let model):
            "llama.cpp pooled no vector from \(model); use an embedding model (tide models list shows them)"
        }
    }
}

/// The cosine similarity of two vectors (their dot product over their lengths), from -1 to 1; 0
/// when either is all zeros or their lengths differ.
public func cosineSimilarity(_ a: [Float], _ b: [Float]) -> Double {
    guard a.count == b.count else { return 0 }
    var dot = 0.0, first = 0.0, second = 0.0
    for (x, y) in zip(a, b) {
        dot += Double(x) * Double(y)
        first += Double(x) * Double(x)
        second += Double(y) * Double(y)
    }
    let lengths = (first * second).squareRoot()
    return lengths > 0 ? dot / lengths : 0
}

/// An embedder made the first time texts are embedded: a run loads its embedding model only
/// when a check needs it. A failure to make it is the error of every call.
public final class LazyTextEmbedder: TextEmbedder {
    private let make: @Sendable () async throws -> any TextEmbedder
    private let made = Mutex<Result<any TextEmbedder, any Error>?>(nil)

    /// An embedder that `make` makes when first needed.
    public init(_ make: @escaping @Sendable () async throws -> any TextEmbedder) {
        self.make = make
    }

    public func embed(_ input: EmbeddingInput) async throws -> Embeddings {
        let embedder: any TextEmbedder
        if let result = made.withLock({ $0 }) {
            embedder = try result.get()
        } else {
            let result: Result<any TextEmbedder, any Error>
            do {
                result = .success(try await make())
            } catch {
                result = .failure(error)
            }
            // Two first calls at once may both make one; the first kept is used from then on.
            embedder = try made.withLock { kept in
                if kept == nil { kept = result }
                return kept!
            }.get()
        }
        return try await embedder.embed(input)
    }
}
