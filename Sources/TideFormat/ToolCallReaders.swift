import TideCore

/// The tool-call formats Tide writes, and which model family uses which.
public enum ToolCallReaders {
    /// The format of the models whose chat template is `template` (its text, or one of llama.cpp's
    /// built-in names): Phi-4-mini's for a template that lists tools between `<|tool|>` and
    /// `<|/tool|>`; Llama 3's for Llama 3 headers (`<|start_header_id|>`, `llama3`) unless the
    /// template speaks Hermes's `<tool_call>` itself (Hermes 3 on Llama 3.1); else the ChatML
    /// family's (Hermes 2 Pro, Qwen 2.5, SmolLM2), which other families follow best.
    public static func reader(forTemplate template: String) -> any ToolCallReader {
        if template.contains("<|tool|>"), template.contains("<|/tool|>") { return Phi4MiniToolCalls() }
        let llama = template == "llama3" || template.contains("<|start_header_id|>")
        return llama && !template.contains("<tool_call>") ? LlamaToolCalls() : HermesToolCalls()
    }
}
