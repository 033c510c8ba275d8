/// The GBNF rules for JSON in general, shared by ``Grammar/anyJSONObject`` and the grammars
/// ``JSONSchema`` builds. White space is bounded (`space` is nothing, one space, or one newline
/// and up to 20 blanks) and numbers have at most 16 integral and 16 fractional digits and a
/// 2-digit exponent (so every number allowed is a finite `Double`), so a small model cannot run
/// on forever. A string character is one code point of the decoded string: a raw character
/// other than `"`, `\` and controls, or one escape; `\u` escapes of UTF-16 surrogates are left
/// out, so lengths counted in the grammar are exact code point counts.
enum JSONGrammarRules {
    /// The rule names, each with its body and the rules it uses, in the order they are printed.
    private static let rules: [(name: String, body: String, uses: [String])] = [
        ("value", "object | array | string | number | boolean | null", ["object", "array", "string", "number", "boolean", "null"]),
        ("object", #""{" space (member ("," space member)*)? "}""#, ["space", "member"]),
        ("member", #"string space ":" space value space"#, ["string", "space", "value"]),
        ("array", #""[" space (value space ("," space value space)*)? "]""#, ["space", "value"]),
        ("string", #""\"" string-char* "\"""#, ["string-char"]),
        ("string-char", #"[^"\\\x00-\x1F] | "\\" (["\\/bfnrt] | "u" ([0-9a-cA-CeEfF] hex{3} | [dD] [0-7] hex{2}))"#, ["hex"]),
        ("hex", "[0-9a-fA-F]", []),
        ("number", #"integer ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})?"#, ["integer"]),
        ("integer", #""-"? ([0] | [1-9] [0-9]{0,15})"#, []),
        ("boolean", #""true" | "false""#, []),
        ("null", #""null""#, []),
        ("space", #"| " " | "\n" [ \t]{0,20}"#, []),
    ]

    /// Every shared rule name; a schema grammar names its own rules otherwise.
    static let names: Set<String> = Set(rules.map(\.name))

    /// The definitions (`name ::= body` lines) of `used` and of every rule they use.
    static func definitions(of used: Set<String>) -> [String] {
        var needed = Set<String>()
        var work = Array(used)
        while let name = work.popLast() {
            guard needed.insert(name).inserted, let rule = rules.first(where: { $0.name == name }) else { continue }
            work += rule.uses
        }
        return rules.filter { needed.contains($0.name) }.map { "\($0.name) ::= \($0.body)" }
    }
}
