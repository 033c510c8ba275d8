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
        #expect(checks == [TideScript.Expectation(.init(.json)),
                           TideScript.Expectation(.init(.jsonSchema, .text("schemas/city.json"))),
                           TideScript.Expectation(.init(.jsonSchema, .text("my schemas/other.json")), negated: true)])
        #expect(script.printed() == text.replacingOccurrences(of: "\"my schemas/other.json\"", with: "my schemas/other.json"))
        #expect(try ConversationScript(parsing: script.printed()) .items == script.items)
    }

    /// Every file a script names, and only those, goes through the one mapping: the format
    /// files, `expect: json-schema`, `expect: tool-args` unless written inline, and `@plugin`.
    @Test func namedFilesAreMappedInOnePlace() throws {
        let script = try ConversationScript(parsing: """
            @model models/small.gguf
            @json-schema schemas/city.json
            @grammar /etc/tide/yes-no.gbnf
            @plugin mine sentences=2
            user: Describe Rome.
            expect: json-schema ./schemas/city.json
            expect: tool-args args.json
            expect: tool-args {"type": "object"}
            expect: contains schemas/city.json

            """)
        var named: [NamedFile] = []
        let mapped = script.mappingNamedFiles { file in
            named.append(file)
            return switch file {
            case .file(let path): "moved/" + path
            case .plugin(let spec): "moved/" + spec
            }
        }
        #expect(named == [.file("schemas/city.json"), .file("/etc/tide/yes-no.gbnf"), .plugin("mine sentences=2"),
                          .file("./schemas/city.json"), .file("args.json")])
        #expect(mapped.printed() == """
            @model models/small.gguf
            @json-schema moved/schemas/city.json
            @grammar moved//etc/tide/yes-no.gbnf
            @plugin moved/mine sentences=2
            user: Describe Rome.
            expect: json-schema moved/./schemas/city.json
            expect: tool-args moved/args.json
            expect: tool-args {"type": "object"}
            expect: contains "schemas/city.json"

            """)
    }
}
