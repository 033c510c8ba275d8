import TideCore

/// What can go wrong with a local model, in words that say what to do.
public enum LlamaError: RemediableError, Sendable, Hashable {
    /// No file at the path.
    case modelNotFound(path: String)
    /// The file is not a usable GGUF model.
    case invalidModel(path: String, reason: String)
    /// llama.cpp refused the file.
    case loadFailed(path: String, detail: String)
    /// llama.cpp could not create a context (usually not enough memory for the context size).
    case contextFailed(contextSize: Int, detail: String)
    /// A context larger than the model was trained on (or than Tide allows when it does not say).
    case contextTooLarge(requested: Int, largest: Int, trained: Bool)
    /// The chat template is neither one llama.cpp knows nor a known name.
    case unsupportedTemplate(String)
    /// A message holding a control token's text that the chat template changed, so that Tide
    /// cannot keep it from being read as a control token.
    case controlTokenText(excerpt: String)
    /// A message holding a NUL character, which a chat template cannot carry.
    case nulCharacter(role: ChatRole)
    /// A prompt of no tokens (an empty message under the `raw` template): nothing to continue.
    case emptyPrompt
    /// Text that could not be tokenized.
    case tokenizationFailed(characters: Int)
    /// `llama_decode` failed.
    case decodeFailed(code: Int32)
    /// Every sequence of a batch engine is in use.
    case noFreeSequence(capacity: Int)
    /// Tokens could not be taken back: no rewind point for the position, or a cache that cannot
    /// drop its tail.
    case rewindFailed(position: Int)
    /// llama.cpp refused the reply format's grammar (Tide checks grammars first, so this means the
    /// two parsers disagree).
    case grammarRefused(String)

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
                + "; try a smaller context"
        case .contextTooLarge(let requested, let largest, let trained):
            "a context of \(requested) tokens is larger than "
                + (trained ? "the model was trained on (\(largest) tokens)" : "the \(largest) tokens Tide allows")
                + "; ask for at most \(largest)"
        case .unsupportedTemplate(let template):
            "the chat template \(template.prefix(60).debugDescription) is not one llama.cpp can render; "
                + "choose one of: \(ChatTemplate.acceptedNames.joined(separator: ", "))"
        case .controlTokenText(let excerpt):
            "a message holds the text of a control token (in \(excerpt.debugDescription)) that the chat template "
                + "rewrote; Tide refuses it rather than let it be read as a turn marker"
        case .nulCharacter(let role):
            "a \(role.rawValue) message holds a NUL character (U+0000), which a chat template cannot carry; remove it"
        case .emptyPrompt:
            "the prompt is empty: with the raw template the model continues the messages' text, and there is none; give some text"
        case .tokenizationFailed(let characters):
            "could not tokenize a text of \(characters) characters"
        case .decodeFailed(let code):
            "llama_decode failed with code \(code)"
        case .noFreeSequence(let capacity):
            "all \(capacity) sequences of the batch are in use; release a conversation first"
        case .grammarRefused(let format):
            "llama.cpp refused the grammar of the reply format \(format); its log above says where"
        case .rewindFailed(let position):
            "could not take the reply back to its token \(position + 1): it is out of reach, or this model's cache cannot drop tokens"
        }
    }

    public var remedies: [Remedy] {
        switch self {
        case .contextFailed, .contextTooLarge: [.contextSize]
        case .unsupportedTemplate: [.chatTemplate]
        default: []
        }
    }
}
