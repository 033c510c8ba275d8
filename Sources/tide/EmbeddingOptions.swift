import ArgumentParser
import TideCore
import TideModels
import TideProvider

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
        LazyTextEmbedder { [embeddingModel] in try Embedders.local(embeddingModel, note: { Terminal.warn($0) }) }
    }
}
