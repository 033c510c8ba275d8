/// A model's tokenizer and chat template as a server shows them to its clients (`tide serve`'s
/// `/tokenize`, `/detokenize`, `/apply-template` and `/tokenizer_info`): the very tokens and
/// prompt text the model is given.
public protocol ModelTokenizer: Sendable {
    /// How many tokens the model knows.
    var vocabularySize: Int { get }
    /// The tokens of `text`: with the tokens the model adds around a text (its BOS) when
    /// `addSpecial`, and control tokens written as text (`<|im_start|>`) read as those tokens
    /// when `parseSpecial`.
    func tokens(of text: String, addSpecial: Bool, parseSpecial: Bool) throws -> [Int32]
    /// One token's bytes (special tokens as their text; part of a UTF-8 character, for some).
    func bytes(of token: Int32) -> [UInt8]
    /// The prompt `messages` become with `tools` offered: the chat template's rendering, as the
    /// model is given it.
    func prompt(for messages: [ChatMessage], offering tools: [ToolDefinition]) throws -> String
    /// The text of the token the model starts a text with, and of the one that ends its turns;
    /// `nil` for a model without one.
    var beginningText: String? { get }
    var endText: String? { get }
}
