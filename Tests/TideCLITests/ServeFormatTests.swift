import Foundation
import Testing

extension CommandLineTests {
    /// Reply formats through `tide serve`: the official `openai` client's structured outputs, llama.cpp's
    /// `grammar` and `json_schema` fields, 400s for what cannot be enforced, and Tide's remote backend
    /// passing a format on to the server.
    @Suite struct ServeFormatTests {
        @Test func theOpenAIClientGetsStructuredOutputsStreamedAndNot() async throws {
            let server = try await TideServer()
            let result = try #require(try server.python("""
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
                schema = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 40},
                          "country": {"type": "string", "maxLength": 40}, "population": {"type": "integer", "minimum": 0}},
                          "required": ["city", "country", "population"], "additionalProperties": False}
                response_format = {"type": "json_schema", "json_schema": {"name": "city", "schema": schema, "strict": True}}
                messages = [{"role": "user", "content": "Describe Paris."}]
                whole = client.chat.completions.create(model="smollm2-135m-instruct", temperature=0, max_tokens=200,
                    messages=messages, response_format=response_format)
                pieces, finish = [], None
                for chunk in client.chat.completions.create(model="smollm2-135m-instruct", temperature=0, max_tokens=200,
                        messages=messages, response_format=response_format, stream=True):
                    for choice in chunk.choices:
                        if choice.delta.content: pieces.append(choice.delta.content)
                        if choice.finish_reason: finish = choice.finish_reason
                any_object = client.chat.completions.create(model="smollm2-135m-instruct", temperature=0, max_tokens=200,
                    messages=messages, response_format={"type": "json_object"})
                grammar = client.chat.completions.create(model="smollm2-135m-instruct", temperature=0,
                    messages=[{"role": "user", "content": "Is Paris in France?"}], extra_body={"grammar": 'root ::= ("Yes" | "No") "."'})
                print(json.dumps({"whole": whole.choices[0].message.content, "whole_finish": whole.choices[0].finish_reason,
                    "streamed": "".join(pieces), "finish": finish, "object": any_object.choices[0].message.content,
                    "grammar": grammar.choices[0].message.content}))
                """) as? [String: Any])
            let whole = try #require(result["whole"] as? String)
            let city = try #require(try JSONSerialization.jsonObject(with: Data(whole.utf8)) as? [String: Any], "\(whole)")
            #expect(city.keys.sorted() == ["city", "country", "population"], "\(whole)")
            #expect(city["population"] is Int, "\(whole)")
            #expect(whole.firstRange(of: "\"city\"")!.lowerBound < whole.firstRange(of: "\"country\"")!.lowerBound,
                    "properties in the schema's order: \(whole)")
            #expect(result["streamed"] as? String == whole, "the same reply streamed, under greedy decoding")
            #expect(result["whole_finish"] as? String == "stop" && result["finish"] as? String == "stop")
            let object = try #require(result["object"] as? String)
            #expect(try JSONSerialization.jsonObject(with: Data(object.utf8)) is [String: Any], "\(object)")
            #expect(["Yes.", "No."].contains(result["grammar"] as? String), "\(result["grammar"] ?? "")")
        }

        @Test func formatsTheServerCannotEnforceAre400s() async throws {
            let server = try await TideServer()
            let start = #"{"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "Hi"}], "#
            let cases: [(String, String, String)] = [
                (#""response_format": {"type": "yaml"}"#, "response_format.type", "'yaml' is not supported"),
                (#""response_format": {"type": "json_schema"}"#, "response_format.json_schema", "must be an object"),
                (#""response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object", "not": {}}}}"#,
                 "response_format.json_schema.schema", "'not'"),
                (#""response_format": "json""#, "response_format", "must be an object with a type"),
                (#""grammar": "root ::= [a-""#, "grammar", "line 1, column"),
                (#""grammar": 7"#, "grammar", "must be GBNF text"),
                (#""json_schema": {"type": "number", "minimum": 1}"#, "json_schema", "only integer bounds"),
                (#""grammar": "root ::= \"a\"", "response_format": {"type": "json_object"}"#, "grammar", "both ask for a reply format"),
            ]
            for (field, param, message) in cases {
                let (status, json) = try await server.post(start + field + "}")
                #expect(status == 400, "\(field)")
                let error = try #require(json["error"] as? [String: Any], "\(json)")
                #expect(error["param"] as? String == param, "\(field): \(error)")
                #expect((error["message"] as? String ?? "").contains(message), "\(field): \(error)")
            }
            let (status, json) = try await server.post(start + #""response_format": {"type": "text"}}"#)
            #expect(status == 200, "\(json)")
        }

        /// `tide generate --remote` sends the format to the server, which enforces it.
        @Test func theRemoteBackendPassesTheFormatOn() async throws {
            let server = try await TideServer()
            let folder = try CommandLineTests.scratchFolder("remote-format")
            let schema = folder.appendingPathComponent("answer.json")
            try #"{"type": "object", "properties": {"answer": {"type": "string", "maxLength": 30}, "sure": {"type": "boolean"}}, "required": ["answer", "sure"], "additionalProperties": false}"#
                .write(to: schema, atomically: true, encoding: .utf8)
            let result = try TideProcess.run(["generate", "--remote", server.url.absoluteString, "--temperature", "0",
                                              "--max-tokens", "100", "--json-schema", schema.path, "What is the capital of France?"])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
            #expect(object.keys.sorted() == ["answer", "sure"] && object["sure"] is Bool, "\(result.stdout)")
            let grammar = try TideProcess.run(["generate", "--remote", server.url.absoluteString, "--temperature", "0",
                                               "--format", "json", "--max-tokens", "100",
                                               "Give the name and the country of the capital of France as JSON."])
            #expect(try JSONSerialization.jsonObject(with: Data(grammar.stdout.utf8)) is [String: Any], "\(grammar.stdout)")
        }
    }
}
