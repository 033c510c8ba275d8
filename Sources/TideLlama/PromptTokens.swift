import Foundation
import TideCore

extension LlamaModel {
    /// A prompt's tokens: the chat rendered with `template`, its own markup tokenized with control
    /// tokens recognised (`<|im_start|>` is one token) and the messages' text tokenized literally,
    /// so that a message cannot forge a turn by writing a control token's text.
    ///
    /// Messages without such text (nearly all) are tokenized with the rest of the prompt in one
    /// pass, exactly as before; only a prompt holding one is tokenized piece by piece.
    public func promptTokens(for messages: [ChatMessage], template: ChatTemplate) throws(LlamaError) -> [Int32] {
        let prompt = try renderPrompt(messages, template: template)
        var literal: [String] = []
        for message in messages where try holdsControlTokenText(message.content) { literal.append(message.content) }
        guard !literal.isEmpty else { return try tokenize(prompt, addSpecial: true, parseSpecial: true) }
        return try tokenize(prompt, keepingLiteral: literal)
    }

    /// Whether `text` reads differently with control tokens recognised.
    private func holdsControlTokenText(_ text: String) throws(LlamaError) -> Bool {
        guard text.contains(where: { !$0.isLetter && !$0.isNumber && !$0.isWhitespace }) else { return false }
        return try tokenize(text, parseSpecial: true) != tokenize(text, parseSpecial: false)
    }

    /// Tokenizes `prompt` with control tokens recognised, except inside each of `literal` (in
    /// the order the prompt holds them), which is tokenized as plain text.
    private func tokenize(_ prompt: String, keepingLiteral literal: [String]) throws(LlamaError) -> [Int32] {
        var tokens: [Int32] = []
        var rest = Substring(prompt)
        var atStart = true
        func markup(_ text: Substring) throws(LlamaError) {
            guard !text.isEmpty || atStart else { return }
            tokens += try tokenize(String(text), addSpecial: atStart, parseSpecial: true)
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
