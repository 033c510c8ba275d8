/// How a local model is offered tools and writes its calls: the prompt's tools block and the
/// way calls and results are written in the model's family's format, and the text that opens a
/// call (from there on the reply is held back and read as calls, never shown).
public protocol ToolCallReader: Sendable {
    /// The text that opens the calls (`<tool_call>`).
    var marker: String { get }
    /// The messages as the model's chat template should see them: the tools offered in the
    /// system prompt, earlier calls and results written as the family writes them. Messages
    /// without tools pass unchanged.
    func prompt(_ messages: [ChatMessage], offering tools: [ToolDefinition]) -> [ChatMessage]
    /// `calls` as the model writes them in a reply, from ``marker`` on (each call's
    /// ``ToolCall/written`` text where it has one).
    func written(_ calls: [ToolCall]) -> String
    /// The calls in `text`, which starts with ``marker``; each keeps its JSON as written.
    func calls(in text: String) throws(ToolFailure) -> [ToolCall]
    /// The GBNF grammar the calls follow, from ``marker`` on: JSON naming one of `tools` (only the
    /// one `choice` names) with arguments valid against its schema; several calls when `parallel`.
    func callGrammar(for tools: [ToolDefinition], choice: ToolChoice, parallel: Bool) throws(ToolFailure) -> String
    /// The pattern (llama.cpp's lazy grammars') whose first match in the reply starts the grammar.
    var lazyTrigger: String { get }
    /// The role the chat template gives results (``ChatRole/tool`` messages the prompt keeps):
    /// `tool`, or Llama 3's `ipython`.
    var toolRole: String { get }
}

extension ToolCallReader {
    public var toolRole: String { ChatRole.tool.rawValue }
}
