import Testing
import TideFormat

@Suite("Schema grammars")
struct SchemaGrammarTests {
    private func grammar(_ schema: String) throws -> Grammar {
        try JSONSchema(JSONValue(parsing: schema)).grammar
    }

    @Test("optional members come out with the right commas for every subset")
    func optionalMembers() throws {
        let grammar = try grammar(#"{"type": "object", "properties": {"a": {"const": 1}, "b": {"const": 2}, "c": {"const": 3}}, "required": ["b"]}"#)
        for text in [#"{"b":2}"#, #"{"a":1,"b":2}"#, #"{"b":2,"c":3}"#, #"{"a":1,"b":2,"c":3}"#] {
            #expect(try GrammarRecognizer.accepts(grammar, text))
        }
        for text in ["{}", #"{"a":1}"#, #"{,"b":2}"#, #"{"b":2,}"#, #"{"b":2,"a":1}"#, #"{"a":1"b":2}"#] {
            #expect(try !GrammarRecognizer.accepts(grammar, text))
        }
    }

    @Test("extra members never reuse a listed key")
    func extraMembers() throws {
        let grammar = try grammar(#"{"properties": {"id": {"type": "integer"}}, "additionalProperties": {"type": "string"}}"#)
        #expect(try GrammarRecognizer.accepts(grammar, #"{"id":1,"i":"x","idx":"y"}"#))
        #expect(try !GrammarRecognizer.accepts(grammar, #"{"id":1,"id":"x"}"#))
    }

    @Test("integer ranges are exact", arguments: [(-120, 37), (0, 0), (7, 1234), (-99, -10), (95, 105)])
    func integerRange(lower: Int, upper: Int) throws {
        let grammar = try grammar(#"{"type": "integer", "minimum": \#(lower), "maximum": \#(upper)}"#)
        for value in (lower - 15)...(upper + 15) {
            #expect(try GrammarRecognizer.accepts(grammar, String(value)) == (lower...upper).contains(value), "\(value)")
        }
    }

    /// A tree of any depth: the grammar recurses through the reference, and `maxItems` holds at
    /// every level.
    @Test("recursive schemas recurse")
    func recursion() throws {
        let grammar = try grammar(##"""
            {"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10},
             "children": {"type": "array", "maxItems": 2, "items": {"$ref": "#/$defs/node"}}}, "required": ["name"], "additionalProperties": false}}}
            """##)
        let deep = #"{"name":"a","children":[{"name":"b","children":[{"name":"c","children":[{"name":"d","children":[{"name":"e"}]}]}]}]}"#
        #expect(try GrammarRecognizer.accepts(grammar, deep))
        #expect(try GrammarRecognizer.accepts(grammar, #"{"name":"a","children":[{"name":"b"},{"name":"c","children":[]}]}"#))
        #expect(try !GrammarRecognizer.accepts(grammar, #"{"name":"a","children":[{"name":"b"},{"name":"c"},{"name":"d"}]}"#))
        #expect(try !GrammarRecognizer.accepts(grammar, #"{"name":"a","children":[{"children":[]}]}"#))
    }

    /// Optional members cost one rule each, not a copy of every later member: a thousand of them
    /// make a grammar within the limit, and any subset still comes out in order.
    @Test("many optional members grow the grammar linearly")
    func manyOptionalMembers() throws {
        let properties = (0..<1000).map { #""p\#($0)": {"type": "integer"}"# }.joined(separator: ", ")
        let grammar = try grammar(#"{"type": "object", "properties": {\#(properties)}, "additionalProperties": false}"#)
        #expect(grammar.text.utf8.count < JSONSchema.maximumGrammarLength)
        #expect(try GrammarRecognizer.accepts(grammar, #"{"p3":1,"p500":2,"p999":3}"#))
        #expect(try GrammarRecognizer.accepts(grammar, "{}"))
        #expect(try !GrammarRecognizer.accepts(grammar, #"{"p500":2,"p3":1}"#))
    }

    /// A long enum is refused for its size, not after checking each value against all the others.
    @Test("a grammar over the limit is refused")
    func tooLarge() throws {
        let values = (0..<20_000).map { #""value number \#($0)""# }.joined(separator: ", ")
        #expect {
            try grammar(#"{"enum": [\#(values)]}"#)
        } throws: { error in
            (error as? SchemaError)?.message.hasPrefix("the grammar for this schema would be over ") == true
        }
    }

    @Test("64-bit bounds")
    func wideBounds() throws {
        let grammar = try grammar(#"{"type": "integer", "minimum": -9223372036854775808, "maximum": 1000000000000000000}"#)
        #expect(try GrammarRecognizer.accepts(grammar, "1000000000000000000"))
        #expect(try !GrammarRecognizer.accepts(grammar, "1000000000000000001"))
        #expect(try GrammarRecognizer.accepts(grammar, "-9223372036854775808"))
        #expect(try !GrammarRecognizer.accepts(grammar, "-9223372036854775809"))
    }

    @Test("unanchored patterns allow text around the match")
    func patterns() throws {
        let grammar = try grammar(#"{"type": "string", "pattern": "[0-9]{2}$"}"#)
        #expect(try GrammarRecognizer.accepts(grammar, #""room 42""#))
        #expect(try !GrammarRecognizer.accepts(grammar, #""room 4a""#))
    }

    @Test("string lengths count code points, escapes included")
    func lengths() throws {
        let grammar = try grammar(#"{"type": "string", "minLength": 2, "maxLength": 2}"#)
        #expect(try GrammarRecognizer.accepts(grammar, #""\né""#))
        #expect(try !GrammarRecognizer.accepts(grammar, #""\ud83d\ude00""#))
        #expect(try !GrammarRecognizer.accepts(grammar, #""abc""#))
    }
}
