import TideCore
import TideOpenAI

/// A reply's log-probabilities on their way out, in its endpoint's shape: those of the tokens
/// not yet sent, and, for a text completion, where the next token begins in the choice's text.
struct LogprobsOut {
    private var pending: [TokenLogprob] = []
    /// The characters of the choice's text before the pending tokens.
    private var offset = 0

    /// Adds the log-probabilities of tokens whose text is still to be sent.
    mutating func add(_ tokens: [TokenLogprob]) {
        pending += tokens
    }

    /// An echoed prompt's tokens, scored, as a text completion's `logprobs` (the first with none).
    mutating func take(prompt: PromptLogprobs) -> TextLogprobs {
        var logprobs = TextLogprobs()
        logprobs.append(prompt, offset: &offset)
        return logprobs
    }

    /// The pending tokens as a chat choice's `logprobs`; `nil` for none.
    mutating func takeChat() -> ChatLogprobs? {
        guard !pending.isEmpty else { return nil }
        defer { pending = [] }
        return ChatLogprobs(pending)
    }

    /// The pending tokens as a text choice's `logprobs`, after `before` (an echo's); `nil` for none.
    mutating func takeText(after before: TextLogprobs? = nil) -> TextLogprobs? {
        guard !pending.isEmpty else { return before }
        var logprobs = before ?? TextLogprobs()
        logprobs.append(pending, offset: &offset)
        pending = []
        return logprobs
    }
}
