import CLlama
import Foundation
import TideCore

extension LlamaModel {
    /// A prompt's tokens: the chat rendered with `template`, its own markup tokenized with control
    /// tokens recognised (`<|im_start|>` is one token) and the messages' text tokenized literally,
    /// so that a message cannot forge a turn by writing a control token's text.
    ///
    /// Messages without such text (nearly all) are tokenized with the rest of the prompt, exactly
    /// as llama.cpp would tokenize the whole; only a prompt holding one is tokenized piece by piece.
    /// A `raw` prompt has no turns to forge: its writer wrote all of it, markup included, so its
    /// control-token text is recognised, as llama.cpp's completion endpoint does. Tool results take
    /// the role of `toolFormat` (by default, the template's own format's).
    public func promptTokens(for messages: [ChatMessage], template: ChatTemplate, toolFormat: ToolCallFormat? = nil) throws(LlamaError)
        -> [Int32]
    {
        let literal = template == .raw ? []
            : messages.indices.filter { splitter.containsControlText(Array(messages[$0].content.utf8)) }
        guard !literal.isEmpty else {
            return try markupTokens(Array(try renderPrompt(messages, template: template, toolFormat: toolFormat).utf8)[...], atStart: true)
        }
        // Render with a placeholder in place of each such message, then put its text back as
        // plain tokens: the placeholders mark exactly where the messages stand in the markup.
        var masked = messages
        var texts: [(placeholder: String, text: String)] = []
        for index in literal {
            let placeholder = "\u{F8FF}tide-\(UUID().uuidString)\u{F8FF}"
            texts.append((placeholder, messages[index].content))
            masked[index].content = placeholder
        }
        return try tokenize(try renderPrompt(masked, template: template, toolFormat: toolFormat), replacing: texts)
    }

    /// Tokens of text with control tokens recognised, in pieces cut before special tokens, in time
    /// linear in its length (see ``SpecialTokenSplitter``), unless the model adds a token at the end
    /// of a text. `atStart` adds the model's BOS token if it wants one.
    private func markupTokens(_ text: ArraySlice<UInt8>, atStart: Bool) throws(LlamaError) -> [Int32] {
        let pieces = llama_vocab_get_add_eos(vocab) ? [text.indices] : splitter.pieces(of: text)
        var tokens: [Int32] = []
        for (number, piece) in pieces.enumerated() {
            tokens += try tokenize(utf8: text[piece], addSpecial: atStart && number == 0, parseSpecial: true)
        }
        return tokens
    }

    /// Tokenizes `prompt` with control tokens recognised, with each placeholder of `texts` (in
    /// the order the prompt holds them) replaced by its text, tokenized as plain text.
    private func tokenize(_ prompt: String, replacing texts: [(placeholder: String, text: String)]) throws(LlamaError)
        -> [Int32]
    {
        var tokens: [Int32] = []
        var rest = Substring(prompt)
        var atStart = true
        func markup(_ text: Substring) throws(LlamaError) {
            guard !text.isEmpty || atStart else { return }
            tokens += try markupTokens(Array(text.utf8)[...], atStart: atStart)
            atStart = false
        }
        for (placeholder, text) in texts {
            guard let range = rest.range(of: placeholder) else { throw .controlTokenText(excerpt: String(text.prefix(40))) }
            try markup(rest[..<range.lowerBound])
            tokens += try tokenize(text, parseSpecial: false)
            rest = rest[range.upperBound...]
        }
        try markup(rest)
        return tokens
    }
}
