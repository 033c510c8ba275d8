import CLlama

/// A GPU that llama.cpp can offload layers to: its name and memory, as its backend reports them.
public struct GPUDevice: Sendable, Hashable {
    /// The device's description (`NVIDIA H100 80GB HBM3`).
    public var name: String
    /// Bytes free on the device now.
    public var freeBytes: Int64
    /// The device's memory, in bytes.
    public var totalBytes: Int64

    /// Creates a description of a device.
    public init(name: String, freeBytes: Int64, totalBytes: Int64) {
        self.name = name
        self.freeBytes = freeBytes
        self.totalBytes = totalBytes
    }

    /// The first GPU of this process's llama.cpp, or `nil` when the library cannot offload
    /// (`llama_supports_gpu_offload`: a build for the CPU alone) or finds no GPU.
    public static var first: GPUDevice? {
        LlamaRuntime.ensureInitialised()
        guard llama_supports_gpu_offload() else { return nil }
        for index in 0..<ggml_backend_dev_count() {
            guard let device = ggml_backend_dev_get(index), ggml_backend_dev_type(device) == GGML_BACKEND_DEVICE_TYPE_GPU else {
                continue
            }
            var free = 0, total = 0
            ggml_backend_dev_memory(device, &free, &total)
            let name = ggml_backend_dev_description(device).map { String(cString: $0) } ?? "GPU \(index)"
            return GPUDevice(name: name, freeBytes: Int64(free), totalBytes: Int64(total))
        }
        return nil
    }
}
