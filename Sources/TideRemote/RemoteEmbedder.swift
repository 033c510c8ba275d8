import AsyncHTTPClient
import Foundation
import NIOCore
import TideCore
import TideOpenAI

/// An embedding model behind an OpenAI-compatible server (`tide serve --embedding-model`,
/// llama-server `--embeddings`, Ollama, vLLM): each call is one `POST /v1/embeddings`. The
/// vectors are normalised here, whatever the server does.
///
/// ```swift
/// let embedder = RemoteEmbedder(url: URL(string: "http://127.0.0.1:8080")!, model: "all-minilm-l6-v2")
/// let vectors = try await embedder.embed(["The tide comes in."])
/// ```
public struct RemoteEmbedder: TextEmbedder {
    /// The server's base URL (the `/v1/…` path is added to it).
    public let url: URL
    /// The model named in each request; `nil` for the server's own choice.
    public let model: String?
    let apiKey: String?
    /// How long the server may take to answer.
    public let timeout: Duration

    /// An embedder for `model` at `url`; `apiKey` is sent as a bearer token.
    public init(url: URL, model: String?, apiKey: String? = nil, timeout: Duration = RemoteBackend.defaultTimeout) {
        self.url = url
        self.model = model
        self.apiKey = apiKey
        self.timeout = timeout
    }

    public func embed(_ input: EmbeddingInput) async throws -> Embeddings {
        let endpoint = RemoteBackend.endpoint("v1/embeddings", at: url)
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(EmbeddingRequest(model: model, input: input))))
        let list = try await RemoteClients.fetch(EmbeddingList.self, what: "a list of embeddings", from: request, apiKey: apiKey,
                                                 timeout: timeout)
        let items = list.data.sorted { $0.index < $1.index }
        guard items.map(\.index) == Array(0..<input.count) else {
            throw RemoteError.malformed(url: endpoint, detail: "\(items.count) vectors for \(input.count) inputs")
        }
        let vectors = try items.map { item -> [Float] in
            guard let values = item.embedding.values, !values.isEmpty else {
                throw RemoteError.malformed(url: endpoint, detail: "vector \(item.index) is not a list of numbers")
            }
            let length = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return length > 0 ? values.map { $0 / length } : values
        }
        return Embeddings(vectors: vectors, tokens: list.usage.promptTokens)
    }
}
