/// What a loaded model is, as `tide models info` shows it.
public struct ModelFacts: Sendable, Hashable {
    /// The model's own name (`general.name`), or the file name.
    public var name: String
    /// The architecture (`llama`, `gemma3`, `phi3`, …).
    public var architecture: String
    /// Number of parameters.
    public var parameterCount: UInt64
    /// Size of the weights in bytes.
    public var weightBytes: UInt64
    /// The quantization (`Q4_1`, `Q4_K - Medium`, …).
    public var quantization: String
    /// The context length the model was trained with.
    public var trainedContextLength: Int
    /// Tokens in the vocabulary.
    public var vocabularySize: Int
    /// The chat template stored in the file, if any.
    public var chatTemplate: String?
    /// How an embedding model pools its token states into one vector (`mean`, `cls`, `last`,
    /// `rank`), as its file names it; `nil` for a model that names none (a chat model).
    public var pooling: String? = nil

    /// llama.cpp's pooling types by number (`llama_pooling_type`).
    static let poolingNames = ["none", "mean", "cls", "last", "rank"]
}
