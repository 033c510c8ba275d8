import TideCore
import TideLlama
import TideModels
import TideRemote

/// The embedders Tide makes, here beside the backends: on a local embedding model (`tide embed`,
/// `tide serve --embedding-model`, `tide run`'s similarity checks), on a served chat model's own
/// weights (`tide serve --embeddings`), or on a server's `POST /v1/embeddings` (`tide embed --remote`).
public enum Embedders {
    /// An embedder on the local model `name` (a registry name or a path to a GGUF file). A model
    /// that names no pooling (a chat model) gives its states' mean, which it was not trained to
    /// make comparable: `note` is told so.
    public static func local(_ name: String, threads: Int? = nil, note: (String) -> Void) throws -> any TextEmbedder {
        let model = try LlamaModel.load(path: try ModelStore.standard.resolve(name).path)
        if model.facts.pooling == nil {
            note("note: \(name) is not an embedding model (it names no pooling): its vectors are the mean of its last layer's "
                 + "states, which it was not trained to make comparable, so similarities from it mean little; name an embedding "
                 + "model (tide models list shows their purpose), such as \(ModelRegistry.defaultEmbeddingModelID)")
        }
        return try LlamaEmbedder(model: model, threads: threads)
    }

    /// An embedder on the weights `model` already holds, when it is a local model; `nil` otherwise.
    public static func own(of model: any ChatModel) throws -> (any TextEmbedder)? {
        guard let local = model as? LocalModel else { return nil }
        return try LlamaEmbedder(model: local.weights)
    }

    /// An embedder on the server's `POST /v1/embeddings`, asking for `model` (the server's own when `nil`).
    public static func remote(_ server: RemoteServer, model: String?) -> any TextEmbedder {
        RemoteEmbedder(url: server.url, model: model, apiKey: server.apiKey)
    }
}
