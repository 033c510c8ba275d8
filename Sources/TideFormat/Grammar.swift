/// A GBNF grammar that llama.cpp's grammar parser and loader accept, for constraining what a
/// model may generate. Its start rule is ``rootRule``.
public struct Grammar: Sendable, Hashable {
    /// The GBNF text.
    public let text: String

    /// The largest grammar text accepted: 1 MiB (1,048,576 bytes of UTF-8).
    public static let maximumTextLength = 1_048_576

    /// The name of the rule a grammar starts from: `root`.
    public static let rootRule = "root"

    /// Checks `text` as llama.cpp would when loading it (see ``GrammarParser`` for the few
    /// deliberate extra refusals: repetition counts above 2000, groups nested deeper than 256, a
    /// text over ``maximumTextLength``), so a bad grammar is refused before any model loads.
    /// A token written by its text (`<think>`) is checked against the vocabulary only when the
    /// model loads.
    public init(gbnf text: String) throws(SyntaxError) {
        _ = try GrammarParser.parse(text)
        self.text = text
    }

    /// A grammar already known to be valid.
    init(checked text: String) {
        self.text = text
    }

    /// Exactly one JSON object with any members (white space bounded as in every generated
    /// grammar): what `--json` and OpenAI's `response_format: json_object` ask for.
    public static let anyJSONObject = Grammar(checked: (["root ::= object space"]
        + JSONGrammarRules.definitions(of: ["object", "space"])).joined(separator: "\n") + "\n")
}
