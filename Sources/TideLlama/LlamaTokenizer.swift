import CLlama
import TideCore

/// A llama.cpp model's tokenizer, with the template and tool-call format its backends render
/// prompts with.
public struct LlamaTokenizer: ModelTokenizer {
    let model: LlamaModel
    let template: ChatTemplate
    let toolFormat: ToolCallFormat

    /// The tokenizer of `model`, rendering with `template` and offering tools as `toolFormat` (by
    /// default, the template's own format) does.
    public init(model: LlamaModel, template: ChatTemplate, toolFormat: ToolCallFormat? = nil) {
        self.model = model
        self.template = template
        self.toolFormat = toolFormat ?? model.toolCallFormat(template: template)
    }

    public var vocabularySize: Int { model.facts.vocabularySize }

    public func tokens(of text: String, addSpecial: Bool, parseSpecial: Bool) throws -> [Int32] {
        try model.tokenize(text, addSpecial: addSpecial, parseSpecial: parseSpecial)
    }

    public func bytes(of token: Int32) -> [UInt8] { model.tokenBytes(token) }

    public func prompt(for messages: [ChatMessage], offering tools: [ToolDefinition]) throws -> String {
        // The reader writes the tools offered, and the calls and results of earlier turns, as a reply's prompt has them.
        try model.renderPrompt(toolFormat.reader.prompt(messages, offering: tools), template: template, toolFormat: toolFormat)
    }

    public var beginningText: String? { text(of: llama_vocab_bos(model.vocab)) }

    public var endText: String? { text(of: llama_vocab_eos(model.vocab)) }

    private func text(of token: Int32) -> String? {
        model.isValidToken(token) ? String(decoding: model.tokenBytes(token), as: UTF8.self) : nil
    }
}
