import Foundation
import Testing
import TideCore
import TideScript

/// `{{name}}` in turns, checks and directives: values from `@var`, the command line and a data
/// row; errors at the reference; transcripts that keep what was written.
struct ScriptVariablesTests {
    static let template = """
        @var country France
        @var most 12
        @temperature {{temperature}}
        user: What is the capital of {{country}}?
        expect: icontains "{{capital}}"
        expect: words <= {{most}}
        expect: contains-any {{capital}} "{{ country }}"

        """

    @Test func referencesTakeTheirValuesWherever() throws {
        let script = try ConversationScript(parsing: Self.template,
                                            variables: ScriptVariables(commandLine: ["temperature": "0.5", "capital": "Paris"]))
        let steps = script.steps
        guard case .directive(.parameter(let setting), _) = steps[2], case .reply(let reply) = steps[3] else {
            Issue.record("unexpected steps \(steps)")
            return
        }
        #expect(setting.description == "temperature 0.5")
        #expect(reply.user == "What is the capital of France?")
        #expect(reply.expectations.map(\.expectation.check) == [
            .init(.icontains, .text("Paris")), .init(.words, .count(CountBound(upper: 12))), .init(.containsAny, .texts(["Paris", "France"])),
        ])
        #expect(script.variables.map(\.name) == ["temperature", "country", "capital", "most"])
    }

    @Test func aRowWinsOverTheScriptAndTheScriptOverTheCommandLine() throws {
        let row = DataRow(name: "it", file: "rows.csv", line: 3, columns: [.init(name: "id", value: "it"), .init(name: "country", value: "Italy"),
                                                                         .init(name: "capital", value: "Rome \"Roma\"")])
        let script = try ConversationScript(parsing: Self.template,
                                            variables: ScriptVariables(commandLine: ["temperature": "0", "most": "3", "capital": "x"], row: row))
        guard case .reply(let reply) = script.steps[3] else {
            Issue.record("no reply step")
            return
        }
        #expect(reply.user == "What is the capital of Italy?")
        // A value's quotes are text, wherever it lands.
        #expect(reply.expectations[0].expectation.check == .init(.icontains, .text("Rome \"Roma\"")))
        #expect(reply.expectations[1].expectation.check == .init(.words, .count(CountBound(upper: 12))))
        #expect(script.variables.map(\.name) == ["id", "country", "capital", "temperature", "most"])
        // The transcript keeps the lines as written, and the row's values in its @var lines.
        let printed = script.printed()
        #expect(printed.contains("user: What is the capital of {{country}}?\n"))
        #expect(printed.contains("@var country Italy\n"))
        #expect(try ConversationScript(parsing: printed, variables: ScriptVariables(commandLine: ["temperature": "0", "capital": "Rome \"Roma\""]))
            .steps == script.steps)
    }

    @Test(arguments: [
        ("user: Hi {{who}}", 1, 10, "{{who}} has no value: give it one with @var who VALUE in the script, --var who=VALUE, or a column who"),
        ("user: Hi\nexpect: words <= {{n}}", 2, 18, "{{n}} has no value"),
        ("@max-tokens {{n}}", 1, 13, "{{n}} has no value"),
        ("user: \"\"\"\nline one\nand {{ x }}\n\"\"\"", 3, 5, "{{x}} has no value"),
        ("user: Hi\nexpect: contains \"a {{x}}\"", 2, 21, "{{x}} has no value"),
        ("user: a\nassistant: b {{x}}\nuser: c", 2, 14, "{{x}} has no value"),
        ("@var 1x y", 1, 6, "'1x' is not one"),
        ("@var x", 1, 7, "@var x needs a value (\"\" for the empty text)"),
        ("@var x 1\n@var x 2", 2, 6, "@var x is given twice"),
        ("user: Hi\n@var x 1", 2, 1, "@var must come before the first turn"),
        ("user: Hi\n@data rows.csv", 2, 1, "@data must come before the first turn"),
        ("@var x \"a\" b", 1, 12, "unexpected text after the quoted value"),
        // The column is where the reference is, however many blanks follow the colon.
        ("user:   Hi {{who}}", 1, 12, "{{who}} has no value"),
        ("user: Hi\nexpect-lua:\t\t{{n}} > 1", 2, 14, "{{n}} has no value"),
        ("@data a.csv\n@data b.csv", 2, 1, "@data is given twice"),
        ("@plugin ban-phrases phrases={{given}}{{spaced}}", 1, 38, "{{spaced}} has no value"),
    ])
    func mistakesAreFoundWhereTheyAre(text: String, line: Int, column: Int, message: String) {
        #expect {
            // A value on the command line makes every script read its references.
            try ConversationScript(parsing: text, variables: ScriptVariables(commandLine: ["given": "1"]))
        } throws: { error in
            guard let error = error as? ScriptParseError else { return false }
            #expect(error.line == line)
            #expect(error.column == column)
            #expect(error.message.contains(message), "\(error.message)")
            return error.line == line && error.column == column && error.message.contains(message)
        }
    }

    @Test func aRowWithoutAColumnSaysWhichRow() {
        let row = DataRow(name: "2", file: "rows.jsonl", line: 2, columns: [.init(name: "country", value: "Spain")])
        #expect {
            try ConversationScript(parsing: "user: {{country}}\nexpect: contains {{capital}}", variables: ScriptVariables(row: row))
        } throws: { error in
            "\(error)".contains("2:18: rows.jsonl:2 (row 2) has no column capital, and no @var or --var gives it a value; its columns are country")
        }
    }

    @Test func aRecordedReplyIsTheModelsTextAndAnyOtherBracesAreText() throws {
        let text = """
            user: Write a template for {{"{{"}}name}}
            assistant: Hello {{name}}, {{ 1 + 2 }}
            @generated stop="eos" tokens=9
            user: {{ not a name }} {{unclosed
            tool-call: {"name": "echo", "arguments": {"text": "{{name}}"}}
            tool: {{name}}
            assistant: Done.
            @generated stop="eos" tokens=3 rounds=1

            """
        let script = try ConversationScript(parsing: text, variables: ScriptVariables(commandLine: ["name": "Ada"]))
        guard case .reply(let first) = script.steps[0], case .reply(let second) = script.steps[1] else {
            Issue.record("unexpected steps")
            return
        }
        #expect(first.user == "Write a template for {{name}}")
        #expect(first.recorded?.text == "Hello {{name}}, {{ 1 + 2 }}")
        #expect(second.user == "{{ not a name }} {{unclosed")
        #expect(second.recorded?.rounds.first?.results == ["{{name}}"])
        #expect(script.printed() == text)
    }

    @Test func givenRoundsBeforeARecordedReplyTakeTheirValues() throws {
        let text = """
            @var city Oslo
            user: Weather?
            tool-call: {"name": "weather", "arguments": {"city": "{{city}}"}}
            tool: Rain in {{city}}
            assistant: {{city}} has rain.
            @generated stop="eos" tokens=5

            """
        let script = try ConversationScript(parsing: text)
        guard case .reply(let reply) = script.steps[1] else {
            Issue.record("unexpected steps")
            return
        }
        #expect(reply.given.first?.calls == [#"{"name": "weather", "arguments": {"city": "Oslo"}}"#])
        #expect(reply.given.first?.results == ["Rain in Oslo"])
        #expect(reply.recorded?.text == "{{city}} has rain.")
        #expect(script.printed() == text)
    }

    @Test func aScriptWithoutVariablesKeepsItsBracesAsText() throws {
        // A chat saved with /save, or a log exported, may quote a template.
        let text = "user: Fill in {{name}} and {{\"x\"}}, {{unclosed\nexpect: contains \"{{name}}\"\n"
        let plain = try ConversationScript(parsing: text)
        guard case .reply(let reply) = plain.steps[0] else {
            Issue.record("unexpected steps")
            return
        }
        #expect(reply.user == "Fill in {{name}} and {{\"x\"}}, {{unclosed")
        #expect(reply.expectations.first?.expectation.check == .init(.contains, .text("{{name}}")))
        #expect(plain.variables.isEmpty && plain.printed() == text)
        // A @var line, or a value given, makes it read them.
        let given = try ConversationScript(parsing: text, variables: ScriptVariables(commandLine: ["name": "Ada"]))
        guard case .reply(let read) = given.steps[0] else {
            Issue.record("unexpected steps")
            return
        }
        #expect(read.user == "Fill in Ada and x, {{unclosed")
        #expect(throws: ScriptParseError.self) { try ConversationScript(parsing: "@var other 1\n" + text) }
    }

    @Test func aValueStaysOneValueInLuaJSONAndPluginLines() throws {
        let value = "a \"b\" \\ c\nd é"
        let text = """
            @var value \(QuotedString.quote(value))
            @var word phrases=Paris
            @plugin ban-phrases {{word}}
            user: Echo it
            tool-call: {"name": "echo", "arguments": {"text": "{{value}}"}}
            tool: done
            assistant: Done.
            @generated stop="eos" tokens=2
            expect-lua: {{value}} ~= reply

            """
        let script = try ConversationScript(parsing: text)
        guard case .directive(.plugin(let spec), _) = script.steps[2], case .reply(let reply) = script.steps[3] else {
            Issue.record("unexpected steps \(script.steps)")
            return
        }
        #expect(spec == "ban-phrases phrases=Paris")
        // JSON string content: the call's arguments decode to the value itself.
        let call = try #require(reply.given.first?.calls.first)
        let decoded = try JSONSerialization.jsonObject(with: Data(call.utf8)) as? [String: Any]
        #expect((decoded?["arguments"] as? [String: Any])?["text"] as? String == value)
        // A Lua string literal, quotes included: decimal escapes for quotes, backslashes and controls.
        #expect(reply.expectations.first?.expectation.check == .init(.lua, .text(#""a \034b\034 \092 c\010d é" ~= reply"#)))
        // In a @plugin line, a value must be one word.
        #expect {
            try ConversationScript(parsing: "@var word \"a b\"\n@plugin ban-phrases {{word}}\nuser: Hi\n")
        } throws: { error in
            "\(error)".contains("2:21: {{word}} in a @plugin line must be one word, without blanks or quotes")
        }
    }

    @Test func aTranscriptRecordsItsValuesAboveEveryLineThatUsesThem() throws {
        let row = DataRow(name: "fr", file: "rows.csv", line: 2, columns: [.init(name: "id", value: "fr"), .init(name: "t", value: "0.5")])
        let text = "# temperatures\n@temperature {{t}}\n@data rows.csv\nuser: Hi {{who}}\n"
        let script = try ConversationScript(parsing: text, variables: ScriptVariables(commandLine: ["who": "Ada"], row: row))
        let printed = script.recordingVariables().printed()
        #expect(printed == "# temperatures\n@var id fr\n@var t 0.5\n@var who Ada\n@temperature {{t}}\nuser: Hi {{who}}\n")
        // It replays alone, with the same settings and turns: its values are in @var lines, not in a row.
        func played(_ script: ConversationScript) -> [String] {
            script.steps.compactMap {
                switch $0 {
                case .directive(.variable, _), .directive(.data, _): nil
                case .directive(let directive, _): "\(directive)"
                case .reply(let reply): reply.user
                default: "\($0)"
                }
            }
        }
        let replayed = try ConversationScript(parsing: printed)
        #expect(played(replayed) == played(script) && played(script).count == 2)
    }
}

/// CSV and JSON Lines rows, and every way a data file can be wrong.
struct DataTableTests {
    @Test func csvReadsQuotesCommasAndLineBreaks() throws {
        let table = try DataTable(parsing: "id,country,capital\r\nfr,France,Paris\n\nit,\"Italy, the \"\"boot\"\"\",\"Ro\nme\"\nx,,\n",
                                  file: "rows.csv", jsonLines: false)
        #expect(table.rows.map(\.name) == ["fr", "it", "x"])
        #expect(table.rows[1]["country"] == "Italy, the \"boot\"")
        #expect(table.rows[1]["capital"] == "Ro\nme")
        #expect(table.rows[1].line == 4)
        #expect(table.rows[2].line == 6)
        #expect(table.rows[2]["capital"] == "")
    }

    @Test func jsonLinesEndedByCRLFAreRows() throws {
        let table = try DataTable(parsing: "{\"id\": \"a\", \"q\": \"x\"}\r\n\r\n{\"id\": \"b\", \"q\": \"y\"}\r\n", file: "rows.jsonl", jsonLines: true)
        #expect(table.rows.map(\.name) == ["a", "b"])
        #expect(table.rows.map(\.line) == [1, 3])
        #expect(table.rows[1]["q"] == "y")
    }

    @Test func rowsWithoutAnIdAreNumbered() throws {
        let table = try DataTable(parsing: "{\"q\": \"a\", \"n\": 2, \"ok\": true, \"list\": [1], \"none\": null}\n\n{\"q\": \"b\"}",
                                  file: "rows.jsonl", jsonLines: true)
        #expect(table.rows.map(\.name) == ["1", "2"])
        #expect(table.rows[0].columns.map(\.value) == ["a", "2", "true", "[1]", ""])
        #expect(table.rows[1].line == 3)
    }

    @Test(arguments: [
        ("a,b\n1,2,3\n", false, 2, 5, "3 fields where the header names 2 columns (a, b)"),
        ("a,b\n1\n", false, 2, 1, "1 fields where the header names 2 columns"),
        ("a,b\n1,\"2\n", false, 2, 3, "this quoted field is never closed"),
        ("a,b\n1,\"2\"x\n", false, 2, 6, "text after a quoted field's closing quote"),
        ("a,b\n1,2\"x\n", false, 2, 4, "a quote inside an unquoted field"),
        ("a,a\n1,2\n", false, 1, 3, "column a is named twice"),
        ("a,\n1,2\n", false, 1, 3, "every column of the header line needs a name"),
        ("", false, 1, 1, "the file is empty"),
        ("a,b\n", false, 1, 1, "no rows under the header line"),
        ("id,b\nx,1\nx,2\n", false, 3, 1, "id x is also the id of the row at line 2"),
        ("{\"a\": 1}\n[1]\n", true, 2, 1, "each line is one JSON object"),
        ("{\"a\": 1}\n{\"a\" 1}\n", true, 2, 6, "expected ':'"),
        ("{\"id\": \"\"}\n", true, 1, 1, "the id column names the row in reports"),
        ("id,e-mail\nx,a@b\n", false, 1, 4, "column \"e-mail\" cannot name a variable"),
        ("{\"first name\": 1}\n", true, 1, 1, "column \"first name\" cannot name a variable"),
        ("{\"a\": 1}\n{\"a\\nb\": 1}\n", true, 2, 1, "column \"a\\nb\" cannot name a variable"),
        ("{\"a\": 1, \"a\": 2}\n", true, 1, 1, "column a is named twice"),
    ])
    func mistakesAreFoundWhereTheyAre(text: String, jsonLines: Bool, line: Int, column: Int, message: String) {
        #expect {
            try DataTable(parsing: text, file: "rows", jsonLines: jsonLines)
        } throws: { error in
            guard let error = error as? DataFileError else { return false }
            #expect((error.line, error.column) == (line, column), "\(error)")
            #expect(error.message.contains(message), "\(error)")
            return error.line == line && error.column == column && error.message.contains(message)
        }
    }
}
