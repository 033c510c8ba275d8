import CLlama
import TideCore

/// What the offload plan needs of a model before its weights load: its layers (those
/// `n_gpu_layers` counts: the blocks and the output layer) and the width of a token's keys and
/// values, for the KV cache's size.
struct ModelShape: Equatable {
    /// The repeating blocks plus the output layer.
    var layers: Int
    /// Keys or values of one token in one block, in elements.
    var keyValueWidth: Int64

    /// Bytes the KV cache takes for `contextSize` tokens, its keys and values stored as `key`
    /// and `value` in every block.
    func kvCacheBytes(contextSize: Int, key: KVCacheType = .f16, value: KVCacheType = .f16) -> Int64 {
        let elements = Double(Int64(contextSize) * Int64(layers - 1) * keyValueWidth)
        return Int64((elements * (key.bytesPerElement + value.bytesPerElement)).rounded(.up))
    }

    /// The shape of a loaded model, from llama.cpp's hyperparameters.
    init(loaded model: OpaquePointer) {
        let heads = max(1, Int64(llama_model_n_head(model)))
        layers = Int(llama_model_n_layer(model)) + 1
        keyValueWidth = Int64(llama_model_n_embd(model)) / heads * Int64(llama_model_n_head_kv(model))
    }

    /// The shape from the file's metadata, as a vocabulary-only load leaves it (llama.cpp loads
    /// no hyperparameters then, and asking for them aborts): `{architecture}.block_count`,
    /// `.embedding_length`, `.attention.head_count`, `.attention.key_length` and `.attention.head_count_kv` (the heads
    /// when a file gives no count of its own, or one per layer, which the metadata strings leave out).
    /// `nil` when the file does not say how many blocks it has.
    init?(metadata: (String) -> String?) {
        guard let architecture = metadata("general.architecture"),
              let blocks = metadata("\(architecture).block_count").flatMap({ Int($0) }), blocks > 0
        else { return nil }
        func number(_ key: String) -> Int64? { metadata("\(architecture).\(key)").flatMap { Int64($0) } }
        let width = number("embedding_length") ?? 0
        let heads = max(1, number("attention.head_count") ?? 1)
        layers = blocks + 1
        // A head's width is the file's key_length where it gives one (Gemma 3's heads are wider
        // than the embedding split among them).
        keyValueWidth = (number("attention.key_length") ?? width / heads) * (number("attention.head_count_kv") ?? heads)
    }
}
