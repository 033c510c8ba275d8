import Foundation
import Testing

extension CommandLineTests {
    /// `--format`, `--json-schema` and `--grammar` on `tide generate`, `tide chat` and `tide run`,
    /// and the script directives and checks, as a user meets them.
    @Suite struct FormatCommandTests {
        func scratchFolder() throws -> URL { try CommandLineTests.scratchFolder("format") }

        static let citySchema = """
            {"type": "object", "properties": {"name": {"type": "string", "maxLength": 40},
             "country": {"type": "string", "maxLength": 40}, "population": {"type": "integer", "minimum": 0}},
             "required": ["name", "country"], "additionalProperties": false}
            """

        @Test func generateWritesJSONThatParses() throws {
            let folder = try scratchFolder()
            let schema = folder.appendingPathComponent("city.json")
            try Self.citySchema.write(to: schema, atomically: true, encoding: .utf8)
            let json = try TideProcess.run(["generate", "--temperature", "0", "--format", "json",
                                            "Give the name and the country of the capital of France as JSON."])
            #expect(json.status == 0, "\(json.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            #expect(object != nil, "\(json.stdout)")
            let city = try TideProcess.run(["generate", "--temperature", "0", "--json-schema", schema.path, "--stats", "Describe Rome."])
            #expect(city.status == 0, "\(city.stderr)")
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(city.stdout.utf8)) as? [String: Any], "\(city.stdout)")
            #expect(fields["name"] is String && fields["country"] is String)
            #expect(Set(fields.keys).isSubset(of: ["name", "country", "population"]))
            #expect(city.stderr.contains("stop: eos"))
            #expect(!city.stderr.contains("not in its format"))
        }

        /// One token cannot hold even `{}` and the model's end: the reply is cut short, and said to be.
        @Test func aReplyCutShortIsSaidToBeIncomplete() throws {
            let result = try TideProcess.run(["generate", "--temperature", "0", "--format", "json", "--max-tokens", "1", "Describe Paris."])
            #expect(result.status == 0)
            #expect(result.stderr.contains("the reply is not in its format (json): incomplete: the reply ended (max-tokens) before its JSON was complete"),
                    "\(result.stderr)")
        }

        /// A plugin has the model write "Banana" into every string it may; budget steering closes the
        /// reply within `--max-tokens`, and `--stats` says so.
        @Test func aReplyIsSteeredToFinishWithinMaxTokens() throws {
            let schema = try scratchFolder().appendingPathComponent("order.json")
            try #"{"type": "object", "properties": {"customer": {"type": "string"}, "items": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {"name": {"type": "string"}, "quantity": {"type": "integer"}}, "required": ["name", "quantity"]}}}, "required": ["customer", "items"]}"#
                .write(to: schema, atomically: true, encoding: .utf8)
            let result = try TideProcess.run(["generate", "--temperature", "0", "--json-schema", schema.path, "--max-tokens", "40",
                                              "--stats", "--plugin", "prefer-words words=banana bias=40", "Write an order as JSON."])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Banana"), "\(result.stdout)")
            #expect((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil, "\(result.stdout)")
            #expect(result.stderr.contains("format steered to finish within max-tokens: ") && result.stderr.contains("stop: eos"),
                    "\(result.stderr)")
            #expect(!result.stderr.contains("not in its format"), "\(result.stderr)")
        }

        /// Bad schemas and grammars are refused with their position before any model loads (the
        /// model named does not exist, and that is not what is reported).
        @Test func badFormatsAreRefusedBeforeTheModelLoads() throws {
            let folder = try scratchFolder()
            func file(_ name: String, _ text: String) throws -> String {
                let url = folder.appendingPathComponent(name)
                try text.write(to: url, atomically: true, encoding: .utf8)
                return url.path
            }
            let cases: [([String], String)] = [
                (["--grammar", try file("bad.gbnf", "root ::= \"a\" rest\nrest ::= [a-z\n")], "bad.gbnf: line 2, column"),
                (["--grammar", try file("undefined.gbnf", "root ::= word\n")], "undefined.gbnf: line 1"),
                (["--json-schema", try file("broken.json", "{\"type\": \"object\",\n  \"properties\": {]\n}")], "broken.json: not JSON: line 2, column"),
                (["--json-schema", try file("unsupported.json", #"{"type": "object", "properties": {"a": {"not": {"type": "string"}}}}"#)],
                 "/properties/a"),
                (["--json-schema", folder.appendingPathComponent("missing.json").path], "missing.json"),
                (["--format", "json", "--grammar", try file("ok.gbnf", "root ::= \"a\"\n")], "--format json and --grammar both set"),
                (["--format", "yaml"], "--format"),
            ]
            for (arguments, message) in cases {
                let result = try TideProcess.run(["generate", "--model", "/nonexistent/x.gguf"] + arguments + ["Hi"])
                #expect(result.status != 0, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("no model file"), "\(arguments): checked before the model: \(result.stderr)")
            }
        }

        /// A script's formats and checks, run from another folder, with its transcript written
        /// elsewhere and replayed from there.
        @Test func scriptsSetFormatsAndCheckReplies() throws {
            let folder = try scratchFolder()
            let scripts = folder.appendingPathComponent("scripts")
            try FileManager.default.createDirectory(at: scripts.appendingPathComponent("schemas"), withIntermediateDirectories: true)
            try Self.citySchema.write(to: scripts.appendingPathComponent("schemas/city.json"), atomically: true, encoding: .utf8)
            try "root ::= (\"Yes\" | \"No\") \".\"\n".write(to: scripts.appendingPathComponent("schemas/yes-no.gbnf"),
                                                           atomically: true, encoding: .utf8)
            try """
                @temperature 0
                @max-tokens 200
                @json-schema schemas/city.json
                user: Describe Rome.
                expect: json
                expect: json-schema schemas/city.json
                @grammar schemas/yes-no.gbnf
                user: Is Rome in Italy?
                expect: regex "^(Yes|No)\\\\.$"
                expect: not json
                @format text
                user: What is the capital of France?
                expect: not json-schema schemas/city.json
                expect: not tool-args schemas/city.json

                """.write(to: scripts.appendingPathComponent("formats.tide"), atomically: true, encoding: .utf8)
            let out = folder.appendingPathComponent("out")
            let run = try TideProcess.run(["run", "--out", out.path, "scripts/formats.tide"], workingDirectory: folder)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("6 passed, 0 failed"), "\(run.stdout)")
            let transcript = try String(contentsOf: out.appendingPathComponent("formats.tide"), encoding: .utf8)
            #expect(transcript.contains("@json-schema ../scripts/schemas/city.json"), "\(transcript)")
            #expect(transcript.contains("expect: json-schema ../scripts/schemas/city.json"))
            #expect(transcript.contains("@grammar ../scripts/schemas/yes-no.gbnf"))
            #expect(transcript.contains("expect: not tool-args ../scripts/schemas/city.json"))
            let replay = try TideProcess.run(["run", out.appendingPathComponent("formats.tide").path])
            #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")

            try "@json-schema nowhere.json\nuser: Hi\n".write(to: scripts.appendingPathComponent("missing.tide"), atomically: true, encoding: .utf8)
            let missing = try TideProcess.run(["run", scripts.appendingPathComponent("missing.tide").path])
            #expect(missing.status != 0)
            #expect(missing.stdout.contains("missing.tide:1: @json-schema nowhere.json:"), "\(missing.stdout)")
        }

        @Test func chatSetsShowsAndSavesTheFormat() throws {
            let folder = try scratchFolder()
            let schema = folder.appendingPathComponent("city.json")
            try Self.citySchema.write(to: schema, atomically: true, encoding: .utf8)
            let saved = folder.appendingPathComponent("saved.tide")
            let chat = try TideProcess.run(["chat", "--temperature", "0", "--max-tokens", "200"], stdin: """
                /set json-schema \(schema.path)
                Describe Rome.
                /show
                /set format yaml
                /save \(saved.path)

                """)
            #expect(chat.status == 0, "\(chat.stderr)")
            #expect(chat.stdout.contains("format json-schema \(schema.path)"), "\(chat.stdout)")
            #expect(chat.stdout.contains("\"name\""), "\(chat.stdout)")
            #expect((chat.stdout + chat.stderr).contains("/set format is json or text, not 'yaml'"))
            let script = try String(contentsOf: saved, encoding: .utf8)
            #expect(script.contains("@json-schema \(schema.path)"), "\(script)")
            // A grammar given by a path relative to the working directory is saved by its absolute path.
            try "root ::= (\"Yes\" | \"No\") \".\"\n".write(to: folder.appendingPathComponent("yes-no.gbnf"), atomically: true, encoding: .utf8)
            let relative = try TideProcess.run(["chat", "--grammar", "yes-no.gbnf", "--temperature", "0"],
                                               stdin: "Is Rome in Italy?\n/save relative.tide\n", workingDirectory: folder)
            #expect(relative.status == 0, "\(relative.stderr)")
            #expect(relative.stdout.contains("Yes.") || relative.stdout.contains("No."), "\(relative.stdout)")
            let relativeScript = try String(contentsOf: folder.appendingPathComponent("relative.tide"), encoding: .utf8)
            #expect(relativeScript.contains("@grammar \(folder.appendingPathComponent("yes-no.gbnf").path)\n"), "\(relativeScript)")
            // Replayed, the reply is generated again under the saved schema.
            let replay = try TideProcess.run(["run", "--json", saved.path])
            #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
            let report = try #require(replay.jsonCases.first)
            let reply = try #require((report["replies"] as? [[String: Any]])?.first?["reply"] as? String)
            #expect((try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])?["name"] is String, "\(reply)")
        }
    }
}
