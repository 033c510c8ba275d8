import Testing
import TideFormat

@Suite("JSON parser")
struct JSONParserTests {
    @Test("valid documents round-trip through text", arguments: [
        #"{"a":1,"b":[true,false,null],"c":"x\"y\\z\n\u0001","d":-0.5,"e":{}}"#,
        #"[]"#, #""é😀""#, #"123"#, #"1.5e+20"#, #"{"z":1,"a":2,"z":3}"#,
    ])
    func roundTrip(text: String) throws {
        let value = try JSONValue(parsing: "  \n" + text + "\t ")
        #expect(try JSONValue(parsing: value.text) == value)
    }

    @Test("integers print without a fraction, keys keep their order, the last duplicate wins")
    func serialization() throws {
        let value = try JSONValue(parsing: #"{"b": 2.0, "a": [1e2, 0.25], "b": 3}"#)
        #expect(value.text == #"{"b":2,"a":[100,0.25],"b":3}"#)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object["b"] == .number(3))
        #expect(JSONValue.string("\u{1F}\t").text == #""\u001f\t""#)
    }

    @Test("invalid documents give line, column and message", arguments: [
        ("{\"a\" 1}", 1, 6, "expected ':' after an object key"),
        ("[1,\n  2,\n  ]", 3, 3, "unexpected ']'; expected a JSON value (object, array, string, number, true, false or null)"),
        ("{\"a\":1} x", 1, 9, "unexpected text after the JSON value; a document holds exactly one value"),
        ("01", 1, 2, "a number may not have a leading zero"),
        ("\"a\tb\"", 1, 3, "control character U+0009 must be escaped inside a string (e.g. \\n, \\t, \\u0001)"),
        ("\"\\ud800\"", 1, 2, "high surrogate \\uD800 must be followed by a low surrogate escape \\uDC00–\\uDFFF"),
        ("[tru]", 1, 2, "invalid literal; expected 'true'"),
        ("\"é\" :", 1, 5, "unexpected text after the JSON value; a document holds exactly one value"),
        ("", 1, 1, "unexpected end of text; expected a JSON value"),
        ("1e999", 1, 1, "the number is too large to represent"),
    ])
    func invalid(text: String, line: Int, column: Int, message: String) {
        let error = #expect(throws: SyntaxError.self) { try JSONValue(parsing: text) }
        #expect(error?.description == "line \(line), column \(column): \(message)")
    }

    @Test("nesting is limited to 256")
    func depth() throws {
        _ = try JSONValue(parsing: String(repeating: "[", count: 256) + String(repeating: "]", count: 256))
        #expect(throws: SyntaxError.self) {
            try JSONValue(parsing: String(repeating: "[", count: 100_000))
        }
    }
}
