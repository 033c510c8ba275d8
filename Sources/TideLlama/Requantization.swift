import CLlama

/// A weights format llama.cpp's `llama_model_quantize` writes.
public enum WeightsFormat: String, Sendable, Hashable, CaseIterable {
    /// 8-bit weights in blocks of 32 with one scale: nearly lossless from any 4-bit file.
    case q8_0 = "Q8_0"
    /// 4-bit weights in blocks of 32 with one scale, which llama.cpp's CPU backend repacks for
    /// its wide kernels.
    case q4_0 = "Q4_0"

    var fileType: llama_ftype {
        switch self {
        case .q8_0: LLAMA_FTYPE_MOSTLY_Q8_0
        case .q4_0: LLAMA_FTYPE_MOSTLY_Q4_0
        }
    }
}

extension LlamaModel {
    /// Writes the weights of the GGUF file at `source` to `destination` in `format`, requantizing
    /// quantized tensors (the token embeddings keep their type), on `threads` threads.
    public static func requantize(_ source: String, to destination: String, format: WeightsFormat, threads: Int) throws(LlamaError) {
        LlamaRuntime.ensureInitialised()
        LlamaRuntime.clearErrors()
        var parameters = llama_model_quantize_default_params()
        parameters.ftype = format.fileType
        parameters.allow_requantize = true
        parameters.nthread = Int32(threads)
        guard llama_model_quantize(source, destination, &parameters) == 0 else {
            throw .loadFailed(path: source, detail: "llama.cpp could not write it as \(format.rawValue) to \(destination)"
                + (LlamaRuntime.errors().isEmpty ? "" : ": " + LlamaRuntime.errors()))
        }
    }
}
