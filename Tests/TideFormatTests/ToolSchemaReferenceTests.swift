import Testing
import TideCore
@testable import TideFormat

/// Tool schemas as pydantic writes them (so most Python MCP servers, and the OpenAI Agents SDK's
/// function tools): models under `$defs` (`definitions` in pydantic 1), used through
/// `#/$defs/NAME`. A reference points into the tool's own schema, in every family's call grammar,
/// where the schema is embedded in the schema of a call, as when it is read alone.
@Suite("Tool schema references")
struct ToolSchemaReferenceTests {
    /// `Weather(location: Location, unit: Unit = "celsius")`, from pydantic 2.13's `model_json_schema()`.
    static let weather = ToolDefinition(name: "get_weather", description: "The weather at a place.", parameters: """
        {"$defs": {"Location": {"properties": {"city": {"title": "City", "type": "string"}, "country": {"anyOf": [{"type": "string"}, \
        {"type": "null"}], "default": null, "title": "Country"}}, "required": ["city"], "title": "Location", "type": "object"}, \
        "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"}}, "properties": {"location": {"$ref": \
        "#/$defs/Location"}, "unit": {"$ref": "#/$defs/Unit", "default": "celsius"}}, "required": ["location"], "title": "Weather", \
        "type": "object"}
        """)

    /// `Trip(stops: list[Stop], back: Location | None)`, a model in a model in a list, the same way.
    static let trip = ToolDefinition(name: "plan_trip", description: "Plans a trip.", parameters: """
        {"$defs": {"Location": {"properties": {"city": {"title": "City", "type": "string"}}, "required": ["city"], "title": \
        "Location", "type": "object"}, "Stop": {"properties": {"location": {"$ref": "#/$defs/Location"}, "minutes": {"maximum": 600, \
        "minimum": 0, "title": "Minutes", "type": "integer"}}, "required": ["location", "minutes"], "title": "Stop", "type": \
        "object"}}, "properties": {"stops": {"items": {"$ref": "#/$defs/Stop"}, "title": "Stops", "type": "array"}, "back": \
        {"anyOf": [{"$ref": "#/$defs/Location"}, {"type": "null"}], "default": null}}, "required": ["stops"], "title": "Trip", \
        "type": "object"}
        """)

    /// pydantic 1's way: `definitions`, `#/definitions/NAME`.
    static let legacy = ToolDefinition(name: "locate", description: "Finds a place.", parameters: """
        {"title": "Locate", "type": "object", "properties": {"place": {"$ref": "#/definitions/Place"}}, "required": ["place"], \
        "definitions": {"Place": {"title": "Place", "type": "object", "properties": {"name": {"title": "Name", "type": "string"}}, \
        "required": ["name"]}}}
        """)

    static let weatherCall = #"{"name": "get_weather", "arguments": {"location": {"city": "Paris", "country": "FR"}, "unit": "fahrenheit"}}"#
    static let tripCall = #"{"name": "plan_trip", "arguments": {"stops": [{"location": {"city": "Lyon"}, "minutes": 30}], "back": {"city": "Paris"}}}"#
    static let legacyCall = #"{"name": "locate", "arguments": {"place": {"name": "Nice"}}}"#

    @Test func theHermesGrammarHoldsACallToTheReferencedModels() throws {
        let grammar = try Grammar(gbnf: HermesToolCalls().callGrammar(for: [Self.weather, Self.trip, Self.legacy], choice: .auto,
                                                                        parallel: true))
        for call in [Self.weatherCall, Self.tripCall, Self.legacyCall] {
            #expect(try GrammarRecognizer.accepts(grammar, "<tool_call>\n\(call)\n</tool_call>"), "\(call)")
        }
        // The referenced schemas are enforced: a unit outside the enum, a stop without its minutes.
        #expect(try !GrammarRecognizer.accepts(grammar, "<tool_call>\n"
            + #"{"name": "get_weather", "arguments": {"location": {"city": "Paris"}, "unit": "kelvin"}}"# + "\n</tool_call>"))
        #expect(try !GrammarRecognizer.accepts(grammar, "<tool_call>\n"
            + #"{"name": "plan_trip", "arguments": {"stops": [{"location": {"city": "Lyon"}}]}}"# + "\n</tool_call>"))
    }

    @Test func theLlamaAndPhi4MiniGrammarsDoToo() throws {
        let llama = try Grammar(gbnf: LlamaToolCalls().callGrammar(for: [Self.trip], choice: .required, parallel: false))
        #expect(try GrammarRecognizer.accepts(llama, Self.tripCall.replacingOccurrences(of: "\"arguments\"", with: "\"parameters\"")))
        let phi = try Grammar(gbnf: Phi4MiniToolCalls().callGrammar(for: [Self.weather, Self.legacy], choice: .required, parallel: true))
        #expect(try GrammarRecognizer.accepts(phi, "functools[\(Self.weatherCall), \(Self.legacyCall)]"))
    }

    @Test func aReferenceToNothingInTheToolsSchemaIsRefusedNamingIt() {
        // The call's own schema has a `/properties/name`; the tool's has none, so this points nowhere.
        let stray = ToolDefinition(name: "stray", description: "", parameters: """
            {"type": "object", "properties": {"x": {"$ref": "#/properties/name"}}}
            """)
        #expect {
            try HermesToolCalls().callGrammar(for: [stray], choice: .auto, parallel: false)
        } throws: { error in
            "\(error)".contains("'$ref' #/properties/name points to no schema")
        }
    }

    @Test func aSubschemaWithAnIDIsWhereItsReferencesStart() throws {
        let schema = try JSONSchema(JSONValue(parsing: """
            {"type": "object", "properties": {"inner": {"$id": "urn:example:inner", "type": "object", "properties": \
            {"x": {"$ref": "#/$defs/s"}}, "required": ["x"], "$defs": {"s": {"type": "integer"}}}, "outer": {"$ref": "#/$defs/s"}}, \
            "$defs": {"s": {"type": "string"}}}
            """))
        #expect(schema.violations(of: try JSONValue(parsing: #"{"inner": {"x": 1}, "outer": "a"}"#)).isEmpty)
        #expect(!schema.violations(of: try JSONValue(parsing: #"{"inner": {"x": "a"}}"#)).isEmpty)
        #expect(!schema.violations(of: try JSONValue(parsing: #"{"outer": 1}"#)).isEmpty)
        // A `#name` anchor (draft 7's plain-name `$id`) starts no resource: its references are the document's.
        let anchored = try JSONSchema(JSONValue(parsing: """
            {"type": "object", "properties": {"inner": {"$id": "#inner", "type": "object", "properties": {"x": {"$ref": "#/$defs/s"}}}}, \
            "$defs": {"s": {"type": "string"}}}
            """))
        #expect(anchored.violations(of: try JSONValue(parsing: #"{"inner": {"x": "a"}}"#)).isEmpty)
    }
}
