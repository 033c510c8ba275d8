/// How the KV cache stores its keys or values: llama.cpp's types for them (`--cache-type-k`,
/// `--cache-type-v`). `f16` is llama.cpp's default and Tide's; `q8_0` halves the cache at a small
/// cost to its precision, `q4_0` and the others quarter it at a larger one. A quantized value
/// cache needs flash attention, which Tide's contexts use.
public enum KVCacheType: String, Sendable, Hashable, CaseIterable, Codable {
    case f32, f16, bf16
    case q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1

    /// Bytes per element, as llama.cpp stores a block of 32 (or one element, unquantized).
    public var bytesPerElement: Double {
        switch self {
        case .f32: 4
        case .f16, .bf16: 2
        case .q8_0: 34.0 / 32
        case .q4_0, .iq4_nl: 18.0 / 32
        case .q4_1: 20.0 / 32
        case .q5_0: 22.0 / 32
        case .q5_1: 24.0 / 32
        }
    }

    /// Whether its elements are quantized (stored in blocks with a scale).
    public var isQuantized: Bool { ![.f32, .f16, .bf16].contains(self) }

    /// Reads a type as a user writes it (any case).
    public init?(naming text: String) {
        self.init(rawValue: text.lowercased())
    }

    /// The types, as an error lists them.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
