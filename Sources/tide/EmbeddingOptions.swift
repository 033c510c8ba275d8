import ArgumentParser
import TideCore
import TideLlama
import TideModels

/// `--embedding-model`: the embedding model that compares meanings (`expect: similar`), loaded
/// the first time a check needs it.
struct EmbeddingOptions: ParsableArguments {
    @Option(name: .customLong("embedding-model"), help: ArgumentHelp(
        "The embedding model of similarity checks (expect: similar): a name or a .gguf path "
            + "(default: \(ModelRegistry.defaultEmbeddingModelID)), loaded when a check first needs it.",
        valueName: "name"))
    var embeddingModel: String = ModelRegistry.defaultEmbeddingModelID

    /// The embedder these options name, made when first used.
    var embedder: LazyTextEmbedder {
        LazyTextEmbedder { [embeddingModel] in try Self.local(embeddingModel) }
    }

    /// An embedder on the local model `name` (a registry name or a path to a GGUF file). A model
    /// that names no pooling (a chat model) is said to give its states' mean, which it was not
    /// trained to make comparable.
    static func local(_ name: String, threads: Int? = nil) throws -> LlamaEmbedder {
        let model = try LlamaModel.load(path: try ModelStore.standard.resolve(name).path)
        if model.facts.pooling == nil {
            Terminal.warn("note: \(name) is not an embedding model (it names no pooling): its vectors are the mean of its last "
                              + "layer's states, which it was not trained to make comparable, so similarities from it mean little; "
                              + "name an embedding model (tide models list shows their purpose), such as \(ModelRegistry.defaultEmbeddingModelID)")
        }
        return try LlamaEmbedder(model: model, threads: threads)
    }
}
