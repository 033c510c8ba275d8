import Testing
import TideFormat

@Suite("Schema errors")
struct SchemaErrorTests {
    private func refusal(_ schema: String) throws -> SchemaError? {
        let value = try JSONValue(parsing: schema)
        return #expect(throws: SchemaError.self) { try JSONSchema(value) }
    }

    @Test("an unsupported keyword names itself and its pointer")
    func unsupportedKeyword() throws {
        let error = try refusal(##"{"properties": {"age": {"type": "integer", "multipleOf": 5}}}"##)
        #expect(error?.pointer == "/properties/age")
        #expect(error?.keyword == "multipleOf")
        #expect(error?.description.hasPrefix("/properties/age: unsupported keyword 'multipleOf'; supported: type,") == true)
    }

    @Test("refusals", arguments: [
        (##"{"$ref": "#/$defs/missing"}"##, "", "$ref"),
        (##"{"$ref": "other.json#/a"}"##, "", "$ref"),
        (##"{"$ref": "#"}"##, "", "$ref"),
        (##"{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}"##,
         "/$defs/a", "$ref"),
        (##"{"type": "text"}"##, "", "type"),
        (##"{"required": "name"}"##, "", "required"),
        (##"{"type": "string", "maxLength": -1}"##, "", "maxLength"),
        (##"{"type": "string", "maxLength": 5000}"##, "", "maxLength"),
        (##"{"enum": []}"##, "", "enum"),
        (##"{"items": [{"type": "string"}]}"##, "", "items"),
        (##"{"type": "number", "minimum": 0}"##, "", "minimum"),
        (##"{"minimum": 0}"##, "", "minimum"),
        (##"{"type": "string", "format": "email"}"##, "", "format"),
        (##"{"type": "string", "pattern": "("}"##, "", "pattern"),
        (##"{"type": "string", "pattern": "\\bword"}"##, "", "pattern"),
        (##"{"type": "string", "pattern": "a^b"}"##, "", "pattern"),
        (##"{"type": "string", "pattern": "(?m)^a$"}"##, "", "pattern"),
        (##"{"type": "string", "pattern": "a\"b"}"##, "", "pattern"),
        (##"{"type": "string", "pattern": "^a", "maxLength": 3}"##, "", "pattern"),
        (##"{"type": "string", "anyOf": [{"maxLength": 3}]}"##, "", "anyOf"),
        (##"{"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}"##, "", "oneOf"),
        (##"{"type": "object", "properties": {"a": false}, "required": ["a"]}"##, "", nil),
        (##"{"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]}"##, "", nil),
        (##"{"type": "integer", "minimum": 5, "maximum": 4}"##, "", nil),
        (##"7"##, "", nil),
    ] as [(String, String, String?)])
    func refused(schema: String, pointer: String, keyword: String?) throws {
        let error = try refusal(schema)
        #expect(error?.pointer == pointer)
        #expect(error?.keyword == keyword)
    }

    @Test("a non-consuming reference cycle is named")
    func cycle() throws {
        let error = try refusal(##"{"$ref": "#"}"##)
        #expect(error?.message == "the references # → # form a loop that reads no input; a recursive schema must recurse "
                + "through a property or an array item")
    }

    @Test("number bounds are refused with the reason")
    func numberBounds() throws {
        let error = try refusal(##"{"type": "number", "maximum": 1.5}"##)
        #expect(error?.message.hasPrefix("only integer bounds can be enforced") == true)
    }

    @Test("deep nesting is refused")
    func depth() throws {
        let deep = String(repeating: ##"{"items": "##, count: 100) + "true" + String(repeating: "}", count: 100)
        #expect(try refusal(deep)?.message == "subschemas nest deeper than the limit of 64")
    }
}
