import Testing
import TideFormat

@Suite("Schema validator")
struct SchemaValidatorTests {
    @Test("per keyword: valid and invalid documents", arguments: [
        (##"{"type": "integer"}"##, "3", "3.5"),
        (##"{"type": ["string", "null"]}"##, "null", "1"),
        (##"{"properties": {"a": {"type": "string"}}, "required": ["a"]}"##, ##"{"a": "x", "b": 1}"##, ##"{"b": 1}"##),
        (##"{"properties": {"a": {}}, "additionalProperties": false}"##, ##"{"a": 1}"##, ##"{"a": 1, "b": 2}"##),
        (##"{"additionalProperties": {"type": "integer"}}"##, ##"{"a": 1}"##, ##"{"a": "1"}"##),
        (##"{"enum": [1, "a", null, {"k": [1]}]}"##, ##"{"k": [1.0]}"##, ##"{"k": [2]}"##),
        (##"{"const": "x"}"##, ##""x""##, ##""y""##),
        (##"{"items": {"type": "boolean"}, "minItems": 1, "maxItems": 2}"##, "[true]", "[true, false, true]"),
        (##"{"items": {"type": "boolean"}}"##, "[]", "[1]"),
        (##"{"minLength": 2, "maxLength": 3}"##, ##""😀é""##, ##""abcd""##),
        (##"{"pattern": "[0-9]{3}"}"##, ##""ab123c""##, ##""ab12c""##),
        (##"{"anyOf": [{"type": "integer"}, {"type": "string"}]}"##, ##""s""##, "true"),
        (##"{"oneOf": [{"type": "integer"}, {"type": "string"}]}"##, "1", "null"),
        (##"{"format": "date"}"##, ##""2024-02-29""##, ##""2024-2-29""##),
        (##"{"format": "time"}"##, ##""23:59:59.123+05:30""##, ##""24:00:00Z""##),
        (##"{"format": "date-time"}"##, ##""2024-12-31T00:00:00Z""##, ##""2024-12-31 00:00:00Z""##),
        (##"{"format": "uuid"}"##, ##""123E4567-e89b-12d3-a456-426614174000""##, ##""123e4567e89b12d3a456426614174000""##),
        (##"{"type": "integer", "minimum": -3, "exclusiveMaximum": 3}"##, "-3", "3"),
        (##"{"$defs": {"n": {"type": "integer"}}, "items": {"$ref": "#/$defs/n"}}"##, "[1, 2]", ##"[1, "2"]"##),
        ("false", "", ""),
    ])
    func keyword(schema: String, valid: String, invalid: String) throws {
        let checked = try JSONSchema(JSONValue(parsing: schema == "false" ? "true" : schema))
        guard schema != "false" else {
            #expect(throws: SchemaError.self) { try JSONSchema(.bool(false)) }
            #expect(checked.violations(of: .null) == [])
            return
        }
        #expect(checked.violations(of: try JSONValue(parsing: valid)) == [])
        #expect(!checked.violations(of: try JSONValue(parsing: invalid)).isEmpty)
    }

    @Test("violations say where and what")
    func messages() throws {
        let schema = try JSONSchema(JSONValue(parsing: ##"""
            {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}}},
             "required": ["id"]}
            """##))
        let violations = schema.violations(of: try JSONValue(parsing: ##"{"tags": ["ok", "long"]}"##))
        #expect(violations.map(\.description) == [
            "(root): missing required property 'id'",
            "/tags/1: is 4 characters long, longer than maxLength 3",
        ])
    }
}
