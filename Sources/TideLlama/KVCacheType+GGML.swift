import CLlama
import TideCore

extension KVCacheType {
    /// llama.cpp's type for it.
    var ggmlType: ggml_type {
        switch self {
        case .f32: GGML_TYPE_F32
        case .f16: GGML_TYPE_F16
        case .bf16: GGML_TYPE_BF16
        case .q8_0: GGML_TYPE_Q8_0
        case .q4_0: GGML_TYPE_Q4_0
        case .q4_1: GGML_TYPE_Q4_1
        case .iq4_nl: GGML_TYPE_IQ4_NL
        case .q5_0: GGML_TYPE_Q5_0
        case .q5_1: GGML_TYPE_Q5_1
        }
    }
}
