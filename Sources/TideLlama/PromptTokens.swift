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
    public func promptTokens(for messages: [ChatMessage], template: ChatTemplate) throws(LlamaError) -> [Int32] {
        let prompt = try renderPrompt(messages, template: template)
        let literal = messages.map(\.content).filter { splitter.containsSpecialText(Array($0.utf8)) }
        guard !literal.isEmpty else { return try markupTokens(Array(prompt.utf8)[...], atStart: true) }
        return try tokenize(prompt, keepingLiteral: literal)
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

    /// Tokenizes `prompt` with control tokens recognised, except inside each of `literal` (in
    /// the order the prompt holds them), which is tokenized as plain text.
    private func tokenize(_ prompt: String, keepingLiteral literal: [String]) throws(LlamaError) -> [Int32] {
        var tokens: [Int32] = []
        var rest = Substring(prompt)
        var atStart = true
        func markup(_ text: Substring) throws(LlamaError) {
            guard !text.isEmpty || atStart else { return }
            tokens += try markupTokens(Array(text.utf8)[...], atStart: atStart)
            atStart = false
        }
        for text in literal {
            // Some templates trim a message's text; look for it as written, then trimmed.
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let range = rest.range(of: text) ?? (trimmed.isEmpty ? nil : rest.range(of: trimmed)) else {
                throw .controlTokenText(excerpt: String(text.prefix(40)))
            }
            try markup(rest[..<range.lowerBound])
            tokens += try tokenize(String(rest[range]), parseSpecial: false)
            rest = rest[range.upperBound...]
        }
        try markup(rest)
        return tokens
    }
}
