import Testing
import TideFormat

@Suite("Schema fixtures")
struct SchemaFixtureTests {
    @Test("there are twenty fixtures")
    func count() {
        #expect(FixtureSchemas.names.count == 20)
    }

    @Test("the validator accepts the valid example and rejects the invalid one", arguments: FixtureSchemas.names)
    func validator(name: String) throws {
        let schema = try JSONSchema(FixtureSchemas.load(name))
        #expect(schema.violations(of: try FixtureSchemas.load(name, ".valid.json")) == [])
        #expect(!schema.violations(of: try FixtureSchemas.load(name, ".invalid.json")).isEmpty)
    }

    @Test("the grammar accepts the valid example, compact and spaced, and rejects the invalid one",
          arguments: FixtureSchemas.names)
    func grammar(name: String) throws {
        let schema = try JSONSchema(FixtureSchemas.load(name))
        let valid = try FixtureSchemas.load(name, ".valid.json")
        #expect(try GrammarRecognizer.accepts(schema.grammar, valid.text))
        #expect(try GrammarRecognizer.accepts(schema.grammar, Pretty.print(valid)))
        #expect(try !GrammarRecognizer.accepts(schema.grammar, try FixtureSchemas.load(name, ".invalid.json").text))
    }
}
