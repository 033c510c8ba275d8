/// What can go wrong with a local model, in words that say what to do.
public enum LlamaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No file at the path.
    case modelNotFound(path: String)
    /// The file is not a usable GGUF model.
    case invalidModel(path: String, reason: String)
    /// llama.cpp refused the file.
    case loadFailed(path: String, detail: String)
    /// llama.cpp could not create a context (usually not enough memory for the context size).
    case contextFailed(contextSize: Int, detail: String)
    /// The chat template is neither one llama.cpp knows nor a known name.
    case unsupportedTemplate(String)
    /// Text that could not be tokenized.
    case tokenizationFailed(characters: Int)
    /// `llama_decode` failed.
    case decodeFailed(code: Int32)
    /// Every sequence of a batch engine is in use.
    case noFreeSequence(capacity: Int)

    public var description: String {
        switch self {
        case .modelNotFound(let path):
            "no model file at \(path): give a path to a .gguf file or a model name (see `tide models list`)"
        case .invalidModel(let path, let reason):
            "\(path) is not a usable GGUF model: \(reason)"
        case .loadFailed(let path, let detail):
            "llama.cpp could not load \(path)" + (detail.isEmpty ? "" : ": \(detail)")
                + " (is the file complete? `tide models pull` re-downloads registry models)"
        case .contextFailed(let size, let detail):
            "llama.cpp could not create a context of \(size) tokens" + (detail.isEmpty ? "" : ": \(detail)")
                + "; try a smaller --ctx-size"
        case .unsupportedTemplate(let template):
            "the chat template \(template.prefix(60).debugDescription) is not one llama.cpp can render; "
                + "choose one with --template (\(ChatTemplate.acceptedNames.joined(separator: ", ")))"
        case .tokenizationFailed(let characters):
            "could not tokenize a text of \(characters) characters"
        case .decodeFailed(let code):
            "llama_decode failed with code \(code)"
        case .noFreeSequence(let capacity):
            "all \(capacity) sequences of the batch are in use; release a conversation first"
        }
    }
}
