/// Where a loaded model runs: on the CPU, or with some or all of its layers on a GPU.
public struct ModelPlacement: Sendable, Hashable {
    /// The GPU that holds layers (its description), `nil` when every layer is on the CPU.
    public var gpu: String?
    /// Layers on the GPU, counted as `n_gpu_layers` counts them (output layer included).
    public var gpuLayers: Int
    /// The model's layers, output layer included.
    public var layers: Int
    /// Why the placement is not what was asked for (``OffloadPlan/note``), for the user.
    public var note: String?

    /// Creates a placement.
    public init(gpu: String?, gpuLayers: Int, layers: Int, note: String? = nil) {
        self.gpu = gpu
        self.gpuLayers = gpuLayers
        self.layers = layers
        self.note = note
    }

    /// Whether the output layer, and so each token's scores, is on the GPU (every layer is).
    public var scoresOnGPU: Bool { gpu != nil && gpuLayers >= layers }

    /// "CPU", "GPU (NVIDIA H100 80GB HBM3, 31 of 31 layers)", or "CPU and GPU (…, 12 of 31 layers)".
    public var description: String {
        guard let gpu, gpuLayers > 0 else { return "CPU" }
        return (gpuLayers < layers ? "CPU and GPU" : "GPU") + " (\(gpu), \(gpuLayers) of \(layers) layers)"
    }
}
