import Foundation
import Testing
import TideScript

/// `@format`, `@json-schema`, `@grammar` and the `json` and `json-schema` checks: what they parse
/// to, how they print, and how transcripts written elsewhere name their files (their errors are
/// in ``ScriptErrorTests``).
struct FormatDirectiveTests {
    @Test func formatsAndChecksParseAndPrintBack() throws {
        let text = """
            @format json
            user: Describe Paris.
            expect: json
            @json-schema schemas/city.json
            user: Describe Rome.
            expect: json-schema schemas/city.json
            expect: not json-schema "my schemas/other.json"
            @grammar yes no.gbnf
            user: Is Rome in Italy?
            @format text

            """
        let script = try ConversationScript(parsing: text)
        let directives = script.items.compactMap { item -> Directive? in
            if case .directive(let directive) = item { directive } else { nil }
        }
        #expect(directives == [.format(.json), .format(.jsonSchema(file: "schemas/city.json")), .format(.grammar(file: "yes no.gbnf")),
                               .format(.text)])
        let checks = script.items.compactMap { item -> TideScript.Expectation? in
            if case .expectation(let expectation) = item { expectation } else { nil }
        }
        #expect(checks == [TideScript.Expectation(.json), TideScript.Expectation(.jsonSchema(file: "schemas/city.json")),
                           TideScript.Expectation(.jsonSchema(file: "my schemas/other.json"), negated: true)])
        #expect(script.printed() == text.replacingOccurrences(of: "\"my schemas/other.json\"", with: "my schemas/other.json"))
        #expect(try ConversationScript(parsing: script.printed()) .items == script.items)
    }

    /// A transcript written to another folder names the schema and grammar files from there;
    /// absolute paths stay.
    @Test func transcriptsWrittenElsewhereStillFindTheirFiles() throws {
        let script = try ConversationScript(parsing: """
            @json-schema schemas/city.json
            @grammar /etc/tide/yes-no.gbnf
            user: Describe Rome.
            expect: json-schema ./schemas/city.json

            """)
        let moved = script.relocated(from: URL(fileURLWithPath: "/work/tests"), to: URL(fileURLWithPath: "/work/out/today"))
        #expect(moved.printed() == """
            @json-schema ../../tests/schemas/city.json
            @grammar /etc/tide/yes-no.gbnf
            user: Describe Rome.
            expect: json-schema ../../tests/schemas/city.json

            """)
        #expect(script.relocated(from: URL(fileURLWithPath: "/work/tests"), to: URL(fileURLWithPath: "/work/tests/")) == script)
        let inside = script.relocated(from: URL(fileURLWithPath: "/work"), to: URL(fileURLWithPath: "/work/out"))
        #expect(inside.printed().hasPrefix("@json-schema ../schemas/city.json\n"))
    }
}
