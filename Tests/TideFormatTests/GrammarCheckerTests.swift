import Testing
import TideFormat
import TideCore

@Suite("GBNF checker")
struct GrammarCheckerTests {
    /// llama.cpp's grammars/json.gbnf.
    static let json = #"""
        root   ::= object
        value  ::= object | array | string | number | ("true" | "false" | "null") ws

        object ::=
          "{" ws (
                    string ":" ws value
            ("," ws string ":" ws value)*
          )? "}" ws

        array  ::=
          "[" ws (
                    value
            ("," ws value)*
          )? "]" ws

        string ::=
          "\"" (
            [^"\\\x7F\x00-\x1F] |
            "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4}) # escapes
          )* "\"" ws

        number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws

        # Optional space: by convention, applied in this grammar after literal chars when allowed
        ws ::= | " " | "\n" [ \t]{0,20}
        """#

    static let arithmetic = """
        root  ::= (expr "=" ws term "\\n")+
        expr  ::= term ([-+*/] term)*
        term  ::= ident | num | "(" ws expr ")" ws
        ident ::= [a-z] [a-z0-9_]* ws
        num   ::= [0-9]+ ws
        ws    ::= [ \\t\\n]*
        """

    static let list = """
        root ::= item+
        # Excludes various line break characters
        item ::= "- " [^\\r\\n\\x0b\\x0c\\x85\\u2028\\u2029]+ "\\n"
        """

    @Test("valid grammars are accepted", arguments: [
        json, arithmetic, list, #"root ::= "a"{2} "b"{0,3} "c"{1,} [^\u00e9\U0001F600]? . <[42]> !<|end|>"#,
        "root ::= (\n  \"a\" |\n  \"b\"\n)\r\n", "root ::= \"\" | []", "root ::= a \"x\"\na ::= \"y\"*",
        #"root ::= "\x41\u00e9\t\n\r\\\"\[\]" [\-a-z]"#,
    ])
    func valid(text: String) throws {
        #expect(try Grammar(gbnf: text).text == text)
    }

    @Test("invalid grammars are refused with place and message", arguments: [
        ("root ::= \"a\" @", 1, 14, "unexpected '@' in the rule 'root'; expected a string, a character class, a rule name, '(', '.', a repetition ('*', '+', '?', '{'), '|' or the end of the line"),
        ("root ::= foo", 1, 10, "undefined rule 'foo'; define it with 'foo ::= …'"),
        ("item ::= \"a\"", 1, 1, "the grammar has no 'root' rule; llama.cpp starts from it, so define 'root ::= …'"),
        ("root ::= expr\nexpr ::= expr \"+\" \"1\" | \"1\"", 2, 1, "left recursion: expr → expr can reach itself without reading any text, which llama.cpp refuses; rewrite it with repetition, e.g. 'list ::= item (\",\" item)*' instead of 'list ::= list \",\" item | item'"),
        ("root ::= a\na ::= b? root\nb ::= \"x\"", 1, 1, "left recursion: root → a → root can reach itself without reading any text, which llama.cpp refuses; rewrite it with repetition, e.g. 'list ::= item (\",\" item)*' instead of 'list ::= list \",\" item | item'"),
        ("root ::= \"a\"{5000}", 1, 14, "the repetition count 5000 is over the limit of 2000"),
        ("root ::= (\"a\"{0,100}){0,100}", 1, 22, "this repetition would make 10100 rules (101 × 100), reaching llama.cpp's limit of 2000; reduce the counts or simplify the repeated group"),
        ("root ::= \"a\"{3,1}", 1, 18, "the repetition's largest count 1 is below its smallest 3"),
        ("root ::= * \"a\"", 1, 10, "'*' needs an item before it to repeat"),
        ("root ::= (\"a\"\n", 2, 1, "expected ')' to close the group opened at line 1, column 10, found the end of the text"),
        ("root ::= \"abc", 1, 10, "the string literal is not closed; expected '\"'"),
        ("root ::= [a-", 1, 10, "the character class is not closed; expected ']'"),
        ("root ::= \"\\q\"", 1, 11, "unknown escape '\\q'; use \\xHH, \\uHHHH, \\UHHHHHHHH, \\t, \\n, \\r, \\\\, \\\", \\[, \\] or \\-"),
        ("root ::= \"\\x4\"", 1, 14, "expected 2 hexadecimal digits after '\\x', found '\"'"),
        ("root = \"a\"", 1, 6, "expected '::=' after the rule name 'root', found '='"),
        ("root ::= \"a\"{x}", 1, 14, "expected a number in the repetition count, found 'x'"),
        ("root ::= <[12>", 1, 14, "expected ']' after the token id, found '>'"),
        // Found by fuzzing: escapes that are no character crashed the shortest-text search.
        ("root ::= \"\\uD800\"", 1, 11, "'\\uD800' is not a character: surrogates (D800 to DFFF) and code points above 10FFFF have no UTF-8 form, so no text could match it"),
        ("root ::= \"\\U00110000\"", 1, 11, "'\\U00110000' is not a character: surrogates (D800 to DFFF) and code points above 10FFFF have no UTF-8 form, so no text could match it"),
        ("root ::= [\\uDC00-\\uDFFF]", 1, 11, "'\\uDC00' is not a character: surrogates (D800 to DFFF) and code points above 10FFFF have no UTF-8 form, so no text could match it"),
        ("root ::= [a-\\U0010FFFF\\U00110000]", 1, 23, "'\\U00110000' is not a character: surrogates (D800 to DFFF) and code points above 10FFFF have no UTF-8 form, so no text could match it"),
        // Each repetition operator wraps the item again: a million of them overflowed the stack.
        ("root ::= \"a\"" + String(repeating: "?", count: 1_000_000), 1, 268,
         "groups and repetitions of repetitions ('\"a\"??') nest deeper than the limit of 256"),
        ("root ::= x\nx ::= " + Array(repeating: "\"a\"", count: 4097).joined(separator: " | "), 2, 1,
         "entering 'x' would make llama.cpp follow more than 4096 alternatives at once, and check every token against each; share the common starts ('\"a\" (\"b\" | \"c\")' for '\"ab\" | \"ac\"') or use a character class"),
    ])
    func invalid(text: String, line: Int, column: Int, message: String) {
        let error = #expect(throws: SyntaxError.self) { try Grammar(gbnf: text) }
        #expect(error?.description == "line \(line), column \(column): \(message)")
    }

    @Test("hostile grammars are refused quickly")
    func hostile() {
        #expect(throws: SyntaxError.self) { try Grammar(gbnf: "root ::= " + String(repeating: "(", count: 10_000)) }
        #expect(throws: SyntaxError.self) {
            try Grammar(gbnf: "root ::= " + String(repeating: "\"a\"{1999} ", count: 2000))
        }
        #expect(throws: SyntaxError.self) { try Grammar(gbnf: String(repeating: "#", count: 2_000_000)) }
    }

    @Test("anyJSONObject accepts objects and nothing else")
    func anyJSONObject() throws {
        let grammar = Grammar.anyJSONObject
        #expect(try Grammar(gbnf: grammar.text) == grammar)
        #expect(Grammar.rootRule == "root")
        for text in [#"{}"#, #"{"a": [1, 2.5e3, "x\n", {"b": null}], "c": true}"#, "{\n  \"k\": \"v\"\n}\n"] {
            #expect(try GrammarRecognizer.accepts(grammar, text))
        }
        for text in ["[]", "1", #""x""#, "{", #"{"a":}"#, "{} {}", "null"] {
            #expect(try !GrammarRecognizer.accepts(grammar, text))
        }
    }

    @Test func exactlyAllowsItsTextAloneWhateverItHolds() throws {
        let text = "He said \"ok\" \\ then\nleft, é ✓ [a-z] ::= #"
        let format = ReplyFormat.exactly(text)
        let grammar = try Grammar(gbnf: format.definition)
        #expect(try GrammarRecognizer.accepts(grammar, text))
        for other in [String(text.dropLast()), text + " ", text.replacingOccurrences(of: "é", with: "e")] {
            #expect(try !GrammarRecognizer.accepts(grammar, other))
        }
        #expect(format.kind == .grammar && format.grammar == format.definition)
    }
}
