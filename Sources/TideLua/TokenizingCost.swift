/// What the tokenizer's work is charged to a plugin call's instruction budget, in units that
/// take about as long as the sandbox's other work (docs/plugins.md, "The sandbox"): on the
/// machines Tide is measured on, a call costs about 70 µs and a byte of text about 0.35 µs to
/// tokenize or a token as much to detokenize (docs/speed.md).
enum TokenizingCost {
    /// Units per call of `tide.tokenize` or `tide.detokenize`.
    static let call: Int64 = 1024
    /// Units per byte tokenized, or per token detokenized.
    static let perByte: Int64 = 8
    /// Units per call of `tide.token_text`.
    static let tokenText: Int64 = 16
}
