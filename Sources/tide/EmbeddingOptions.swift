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

    /// An embedder on the local model `name` (a registry name or a path to a GGUF file).
    static func local(_ name: String, threads: Int? = nil) throws -> LlamaEmbedder {
        try LlamaEmbedder(model: try LlamaModel.load(path: try ModelStore.standard.resolve(name).path), threads: threads)
    }
}
