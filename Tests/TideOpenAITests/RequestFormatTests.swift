import Testing
import TideCore
import TideFormat
import TideOpenAI

/// The reply format a chat-completion request asks for, and the fields a client sends for one.
struct RequestFormatTests {
    func format(_ fields: String) throws -> ReplyFormat? {
        let body = #"{"model": "m", "messages": [], "# + fields + "}"
        return try ReplyFormat.requested(in: try JSONValue(parsing: body))
    }

    @Test func eachWayOfAskingGivesItsFormat() throws {
        #expect(try format(#""temperature": 0"#) == nil)
        #expect(try format(#""response_format": {"type": "text"}"#) == nil)
        #expect(try format(#""response_format": null"#) == nil)
        #expect(try format(#""response_format": {"type": "json_object"}"#) == .json)
        let schema = #"{"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}}, "required": ["zeta", "alpha"]}"#
        let openAI = try #require(try format(#""response_format": {"type": "json_schema", "json_schema": {"name": "x", "strict": true, "schema": "# + schema + "}}"))
        #expect(openAI.kind == .jsonSchema)
        #expect(openAI.definition == (try JSONValue(parsing: schema)).text, "the schema as sent, keys in order")
        #expect(openAI.grammar == (try ReplyFormat.jsonSchema(schema)).grammar, "the grammar of the schema as written")
        #expect(try format(#""json_schema": "# + schema) == openAI)
        #expect(try format(#""response_format": {"type": "json_object", "schema": "# + schema + "}") == openAI)
        let grammar = try #require(try format(#""grammar": "root ::= \"yes\" | \"no\"""#))
        #expect(grammar.kind == .grammar && grammar.definition == #"root ::= "yes" | "no""#)
    }

    @Test(arguments: [
        (#""response_format": {"type": "xml"}"#, "response_format.type", "'xml' is not supported"),
        (#""response_format": {}"#, "response_format", "must be an object with a type"),
        (#""response_format": {"type": "json_schema", "json_schema": {"name": "x"}}"#, "response_format.json_schema.schema", "is missing"),
        (#""response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "object", "patternProperties": {}}}}"#,
         "response_format.json_schema.schema", "patternProperties"),
        (##""json_schema": {"$ref": "#/$defs/nowhere"}"##, "json_schema", "nowhere"),
        (#""grammar": "root ::= (\"a\"""#, "grammar", "line 1, column"),
        (#""grammar": ["root ::= \"a\""]"#, "grammar", "must be GBNF text"),
        (#""json_schema": {"type": "object"}, "grammar": "root ::= \"a\"""#, "grammar", "json_schema and grammar both ask"),
    ])
    func malformedFormatsNameTheirField(fields: String, field: String, message: String) {
        #expect {
            try format(fields)
        } throws: { error in
            guard let error = error as? RequestFieldError else { return false }
            return error.field == field && error.message.contains(message)
        }
    }

    /// What a client sends for each format reads back as that format.
    @Test func requestFieldsReadBack() throws {
        let formats: [ReplyFormat] = [
            .json,
            try .jsonSchema(#"{"type": "object", "properties": {"b": {"type": "boolean"}, "a": {"enum": ["x", "y"]}}}"#),
            try .grammar(#"root ::= "yes" | "no""#),
        ]
        for format in formats {
            let body = JSONValue.object(JSONObject([.init(key: "model", value: .string("m"))] + format.requestFields))
            #expect(try ReplyFormat.requested(in: body) == format)
        }
    }
}
