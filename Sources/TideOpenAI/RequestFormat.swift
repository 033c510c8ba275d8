import TideCore
import TideFormat

extension ReplyFormat {
    /// The format a chat-completion request body asks for, read in the body's own key order (a
    /// schema's properties come out in the order it lists them):
    /// - `response_format`: `{"type": "text"}`, `{"type": "json_object"}` (optionally with a
    ///   llama.cpp-style `schema`), or `{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}`;
    /// - `json_schema`: a schema (llama.cpp's field);
    /// - `grammar`: GBNF text (llama.cpp's field).
    ///
    /// At most one may ask for a format; anything malformed is a ``RequestFieldError`` naming the field.
    public static func requested(in body: JSONValue) throws(RequestFieldError) -> ReplyFormat? {
        guard case .object(let fields) = body else { return nil }
        var formats: [(field: String, format: ReplyFormat)] = []
        if let value = fields["response_format"], value != .null, let format = try responseFormat(value) {
            formats.append(("response_format", format))
        }
        if let schema = fields["json_schema"], schema != .null {
            formats.append(("json_schema", try jsonSchema(schema, field: "json_schema")))
        }
        if let grammar = fields["grammar"], grammar != .null {
            guard case .string(let text) = grammar else {
                throw RequestFieldError(field: "grammar", message: "grammar must be GBNF text (a string)")
            }
            do {
                formats.append(("grammar", try .grammar(text)))
            } catch {
                throw RequestFieldError(field: "grammar", message: "grammar is not a grammar Tide can use: \(error.problem)")
            }
        }
        guard formats.count <= 1 else {
            throw RequestFieldError(field: formats[1].field, message: formats.map(\.field).joined(separator: " and ")
                                    + " both ask for a reply format; send one")
        }
        return formats.first?.format
    }

    private static func responseFormat(_ value: JSONValue) throws(RequestFieldError) -> ReplyFormat? {
        let usage = #"use {"type": "json_object"} or {"type": "json_schema", "json_schema": {"name": …, "schema": {…}}}"#
        guard case .object(let format) = value, case .string(let type)? = format["type"] else {
            throw RequestFieldError(field: "response_format", message: "response_format must be an object with a type; \(usage)")
        }
        switch type {
        case "text": return nil
        case "json_object":
            guard let schema = format["schema"], schema != .null else { return .json }
            return try jsonSchema(schema, field: "response_format.schema")
        case "json_schema":
            guard case .object(let wrapper)? = format["json_schema"] else {
                throw RequestFieldError(field: "response_format.json_schema",
                                        message: "response_format.json_schema must be an object holding the schema; \(usage)")
            }
            guard let schema = wrapper["schema"] else {
                throw RequestFieldError(field: "response_format.json_schema.schema",
                                        message: "response_format.json_schema.schema is missing; \(usage)")
            }
            return try jsonSchema(schema, field: "response_format.json_schema.schema")
        default:
            throw RequestFieldError(field: "response_format.type",
                                    message: "response_format.type '\(type)' is not supported; use text, json_object or json_schema")
        }
    }

    static func jsonSchema(_ value: JSONValue, field: String) throws(RequestFieldError) -> ReplyFormat {
        do {
            return try .jsonSchema(value)
        } catch {
            throw RequestFieldError(field: field, message: "\(field) is not a schema Tide can enforce: \(error.problem)")
        }
    }

    /// The fields that ask an OpenAI-compatible server for this format, which ``requested(in:)``
    /// reads back: `response_format` for JSON and schemas, llama.cpp's `grammar` for a grammar.
    public var requestFields: [JSONObject.Member] {
        switch kind {
        case .json:
            return [.init(key: "response_format", value: .object(JSONObject([.init(key: "type", value: .string("json_object"))])))]
        case .jsonSchema:
            let schema = (try? JSONValue(parsing: definition)) ?? .object(JSONObject([]))
            let wrapper = JSONObject([.init(key: "name", value: .string("reply")), .init(key: "schema", value: schema),
                                      .init(key: "strict", value: .bool(true))])
            return [.init(key: "response_format", value: .object(JSONObject([
                .init(key: "type", value: .string("json_schema")), .init(key: "json_schema", value: .object(wrapper)),
            ])))]
        case .grammar:
            return [.init(key: "grammar", value: .string(definition))]
        }
    }
}
