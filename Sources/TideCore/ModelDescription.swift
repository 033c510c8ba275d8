/// What a backend tells plugins and status displays about its model (Lua's `tide.model`).
public struct ModelDescription: Sendable, Hashable {
    /// The model's name: its own (`general.name`), a file name, or the remote model's id.
    public var name: String
    /// Which backend runs it: `llama.cpp`, `remote`, or a test backend's name.
    public var backend: String
    /// The architecture (`llama`, `gemma3`, …), when known.
    public var architecture: String?
    /// The context window of this session, in tokens.
    public var contextSize: Int

    /// The context sizes Tide accepts from any surface (`--ctx-size`, `@ctx-size`, a registry
    /// entry); a model may allow fewer (no more than it was trained on).
    public static let contextSizes = 16...(1 << 24)
    /// Why `layers` is not a count of layers to offload to a GPU that Tide accepts from any
    /// surface (`--gpu-layers`, a registry entry's `gpu_layers`): `-1` (all) or a count ≥ 0.
    public static func gpuLayersProblem(_ layers: Int) -> String? {
        layers < -1 ? "must be -1 (all) or a count ≥ 0, not \(layers)" : nil
    }

    /// The context length the model was trained with, when known.
    public var trainedContextLength: Int?
    /// Tokens in the vocabulary, when the backend has a local tokenizer.
    public var vocabularySize: Int?
    /// The tokens that end a reply (end of turn, end of text), when the backend has a local
    /// tokenizer; empty otherwise.
    public var endTokens: [Int32]
    /// Where the model runs, for a local model: `CPU`, or the GPU and the layers it holds
    /// (`GPU (NVIDIA H100 80GB HBM3, 31 of 31 layers)`); `nil` for a model on a server.
    public var placement: String?

    /// Creates a description.
    public init(name: String, backend: String, architecture: String? = nil, contextSize: Int,
                trainedContextLength: Int? = nil, vocabularySize: Int? = nil, endTokens: [Int32] = [],
                placement: String? = nil) {
        self.name = name
        self.backend = backend
        self.architecture = architecture
        self.contextSize = contextSize
        self.trainedContextLength = trainedContextLength
        self.vocabularySize = vocabularySize
        self.endTokens = endTokens
        self.placement = placement
    }
}
