/// How many of a model's layers go to the GPU: what `--gpu-layers` asked for, fitted to the GPU's
/// free memory when it asked for nothing in particular.
///
/// Layers are counted as llama.cpp counts them in `n_gpu_layers`: the model's repeating layers,
/// then one more for the output layer (SmolLM2-135M has 30 + 1).
public struct OffloadPlan: Sendable, Hashable {
    /// `n_gpu_layers` for llama.cpp: 0 keeps every layer on the CPU.
    public var gpuLayers: Int
    /// What the user should know when the plan is not "everything on the GPU" by their choice:
    /// the layers that fit, or a request a build without offload cannot honour.
    public var note: String?

    /// A plan of `gpuLayers`, with a note for the user.
    public init(gpuLayers: Int, note: String? = nil) {
        self.gpuLayers = gpuLayers
        self.note = note
    }

    /// Part of the GPU's free memory kept for llama.cpp's compute buffers and the CUDA runtime.
    static let reservedBytes: Int64 = 512 << 20

    /// The plan for a model of `layers` layers (output included) that takes `modelBytes`, with a
    /// KV cache of `cacheBytes` for the context it will get.
    /// - Parameters:
    ///   - requested: `--gpu-layers`: `nil` for every layer that fits in the GPU's free memory,
    ///     `-1` for every layer, `0` for none, or a count (llama.cpp takes a count past the
    ///     model's layers as all of them).
    ///   - gpu: the GPU, `nil` where the library cannot offload or finds none.
    public static func make(requested: Int?, gpu: GPUDevice?, layers: Int, modelBytes: Int64, cacheBytes: Int64)
        -> OffloadPlan
    {
        guard let gpu else {
            guard let requested, requested != 0 else { return OffloadPlan(gpuLayers: 0) }
            return OffloadPlan(gpuLayers: 0, note: "--gpu-layers \(requested) has no effect: this llama.cpp has no GPU offload "
                + "(or finds no GPU), so the model runs on the CPU; build llama.cpp with CUDA (TIDE_GPU=cuda make setup) to use a GPU")
        }
        if let requested { return OffloadPlan(gpuLayers: requested) }
        let usable = gpu.freeBytes - reservedBytes
        guard modelBytes + cacheBytes > usable else { return OffloadPlan(gpuLayers: layers) }
        let perLayer = max(1, (modelBytes + cacheBytes) / Int64(max(1, layers)))
        let fitting = Int(max(0, min(Int64(layers - 1), usable / perLayer)))
        return OffloadPlan(gpuLayers: fitting, note: "the model and its cache (\(gib(modelBytes + cacheBytes))) need more than the "
            + "\(gib(gpu.freeBytes)) free on \(gpu.name): \(fitting) of \(layers) layers go to the GPU, the rest run on the CPU "
            + "(--gpu-layers sets the count)")
    }

    /// Bytes as GiB with one decimal.
    static func gib(_ bytes: Int64) -> String {
        let tenths = (bytes * 10 + (1 << 29)) >> 30
        return "\(tenths / 10).\(tenths % 10) GiB"
    }
}
