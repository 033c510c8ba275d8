/// How a model family is offered tools and writes its calls: each case has a reader of its own
/// (TideFormat's `ToolCallFormat.reader`). Chosen once per conversation from the model's chat
/// template (``ToolCallFormat/inferred(fromTemplate:)``), or named by a preset or `--tool-format`
/// for a model whose template Tide does not recognise; docs/tools.md lists the formats.
public enum ToolCallFormat: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Hermes 2 Pro's `<tool_call>{…}</tool_call>`, which the ChatML family (Qwen 2.5, SmolLM2)
    /// and most others follow best.
    case hermes
    /// Llama 3.1's: a call is the whole reply, `{"name": …, "parameters": {…}}`; results come back
    /// in `ipython` turns.
    case llama3
    /// Phi-4-mini's `<|tool_call|>[…]<|/tool_call|>`, tools listed between `<|tool|>` and `<|/tool|>`.
    case phi4Mini = "phi4-mini"

    /// The format of the models whose chat template is `template` (its text, or one of llama.cpp's
    /// built-in names): Phi-4-mini's for a template that lists tools between `<|tool|>` and
    /// `<|/tool|>`; Llama 3's for Llama 3 headers (`<|start_header_id|>`, `llama3`) unless the
    /// template speaks Hermes's `<tool_call>` itself (Hermes 3 on Llama 3.1); else Hermes's.
    public static func inferred(fromTemplate template: String) -> ToolCallFormat {
        if template.contains("<|tool|>"), template.contains("<|/tool|>") { return .phi4Mini }
        let llama = template == "llama3" || template.contains("<|start_header_id|>")
        return llama && !template.contains("<tool_call>") ? .llama3 : .hermes
    }

    /// The format named `name`, or an error that lists the names.
    public init(naming name: String) throws(InvalidParameterError) {
        guard let format = ToolCallFormat(rawValue: name) else {
            throw InvalidParameterError(name: "tool-format", value: name, requirement: Self.requirement)
        }
        self = format
    }

    /// What a name must be.
    public static var requirement: String { "one of " + allCases.map(\.rawValue).joined(separator: ", ") }

    public var description: String { rawValue }
}
