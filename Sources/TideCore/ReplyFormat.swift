/// A shape the reply must take: JSON, JSON that follows a schema, or text that follows a GBNF
/// grammar. A local model is constrained token by token by ``grammar``; a remote server is sent
/// the format as it was given (``kind`` and ``definition``), since servers take schemas.
///
/// Values are made (and checked) by the TideFormat module, so every format holds a grammar that
/// llama.cpp accepts.
public struct ReplyFormat: Sendable, Hashable, Codable {
    /// What the user asked for.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Any JSON object (`--format json`, OpenAI's `json_object`).
        case json
        /// A JSON document valid against a schema (`--json-schema FILE`).
        case jsonSchema = "json-schema"
        /// Text that a GBNF grammar accepts (`--grammar FILE`).
        case grammar
    }

    /// What the user asked for.
    public var kind: Kind
    /// The schema (JSON text) or the grammar (GBNF) as given; empty for ``Kind/json``.
    public var definition: String
    /// The GBNF grammar, with its start rule named `root`, that a local model samples under.
    public var grammar: String
    /// The file the schema or grammar was read from, as the user named it, if any.
    public var file: String?

    /// A format; use TideFormat's constructors, which check the definition and build the grammar.
    public init(kind: Kind, definition: String, grammar: String, file: String? = nil) {
        self.kind = kind
        self.definition = definition
        self.grammar = grammar
        self.file = file
    }

    /// How the format is set, as `/show` prints it and a script directive writes it:
    /// `json`, `json-schema FILE`, `grammar FILE` (or `(inline)` when it came from no file).
    public var description: String {
        kind == .json ? "json" : "\(kind.rawValue) \(file ?? "(inline)")"
    }
}
