import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// Tools through `tide serve` as OpenAI's API offers them, seen by the official `openai`
    /// client; and `--remote` running Tide's Lua tools for calls a server returns. What is
    /// asserted holds for any words a model picks: the calls' shape is the grammar's, the answer
    /// after the results a plugin's.
    @Suite struct ServeToolsTests {
        static let client = """
            import json, sys, openai
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            weather = {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city now",
                "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 24},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city", "unit"],
                    "additionalProperties": False}}}
            clock = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
            ask = [{"role": "user", "content": "What is the weather in Paris?"}]
            named = {"type": "function", "function": {"name": "get_weather"}}
            def calls(message):
                return [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments} for c in message.tool_calls or []]
            whole = client.chat.completions.create(model="m", temperature=0, max_tokens=80, messages=ask, tools=[weather, clock],
                tool_choice=named, parallel_tool_calls=False)
            streamed, finish = {}, None
            for chunk in client.chat.completions.create(model="m", temperature=0, max_tokens=80, messages=ask,
                    tools=[weather, clock], tool_choice=named, parallel_tool_calls=False, stream=True):
                for choice in chunk.choices:
                    for piece in choice.delta.tool_calls or []:
                        entry = streamed.setdefault(piece.index, {"id": None, "name": "", "arguments": ""})
                        if piece.id: entry["id"] = piece.id
                        if piece.function and piece.function.name: entry["name"] += piece.function.name
                        if piece.function and piece.function.arguments: entry["arguments"] += piece.function.arguments
                    if choice.finish_reason: finish = choice.finish_reason
            required = client.chat.completions.create(model="m", temperature=0, max_tokens=120, messages=ask,
                tools=[weather, clock], tool_choice="required", parallel_tool_calls=False)
            first = calls(whole.choices[0].message)
            history = ask + [{"role": "assistant", "content": None, "tool_calls": [{"id": c["id"], "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]}} for c in first]}]
            history += [{"role": "tool", "tool_call_id": c["id"], "content": "22 C and sunny"} for c in first]
            answer = client.chat.completions.create(model="m", temperature=0, max_tokens=40, messages=history, tools=[weather, clock])
            pieces = []
            for chunk in client.chat.completions.create(model="m", temperature=0, max_tokens=40, messages=history,
                    tools=[weather, clock], stream=True):
                for choice in chunk.choices:
                    if choice.delta.content: pieces.append(choice.delta.content)
            print(json.dumps({"whole": first, "whole_finish": whole.choices[0].finish_reason,
                "whole_content": whole.choices[0].message.content,
                "streamed": [streamed[key] for key in sorted(streamed)], "streamed_finish": finish,
                "required": calls(required.choices[0].message), "required_finish": required.choices[0].finish_reason,
                "answer": answer.choices[0].message.content, "answer_finish": answer.choices[0].finish_reason,
                "answer_calls": calls(answer.choices[0].message), "streamed_answer": "".join(pieces)}))
            """

        /// The client's tools, named and required, whole and streamed, then the call → result →
        /// answer loop; the server's own tools are not offered to a request that brings its own.
        @Test func theOpenAIClientCallsToolsAndReadsTheAnswer() async throws {
            let plugins = try ScratchPlugins.folder(["quote-results": ScratchPlugins.quoteResults])
            let server = try await TideServer(["--plugin", "calculator",
                                               "--plugin", plugins.appendingPathComponent("quote-results.lua").path])
            let result = try #require(try server.python(Self.client) as? [String: Any])
            let whole = try #require(result["whole"] as? [[String: String]])
            #expect(whole.count == 1 && whole[0]["name"] == "get_weather", "\(whole)")
            let arguments = try #require(try JSONSerialization.jsonObject(with: Data((whole.first?["arguments"] ?? "").utf8)) as? [String: String],
                                         "\(whole)")
            #expect(Set(arguments.keys) == ["city", "unit"])
            #expect(["celsius", "fahrenheit"].contains(arguments["unit"] ?? ""), "valid against the schema: \(arguments)")
            #expect((arguments["city"] ?? "").count <= 24)
            #expect(result["whole_finish"] as? String == "tool_calls")
            #expect((result["whole_content"] as? String ?? "").isEmpty, "the call is never shown as text")
            #expect((whole.first?["id"] ?? "").hasPrefix("call_"))
            let streamed = try #require(result["streamed"] as? [[String: String]])
            #expect(streamed.map { $0.filter { $0.key != "id" } } == whole.map { $0.filter { $0.key != "id" } },
                    "the same call, streamed as OpenAI streams calls: \(streamed)")
            #expect(streamed.first?["id"] != whole.first?["id"], "each reply's call has an id of its own")
            #expect(result["streamed_finish"] as? String == "tool_calls")
            let required = try #require(result["required"] as? [[String: String]])
            #expect(required.count == 1, "parallel_tool_calls false: one call, \(required)")
            #expect(["get_weather", "get_time"].contains(required.first?["name"] ?? ""), "only the request's tools, not calculate: \(required)")
            #expect(result["required_finish"] as? String == "tool_calls")
            #expect(result["answer"] as? String == "The tool said: 22 C and sunny")
            #expect(result["answer_finish"] as? String == "stop")
            #expect((result["answer_calls"] as? [Any])?.isEmpty == true)
            #expect(result["streamed_answer"] as? String == "The tool said: 22 C and sunny")
        }

        /// The server's own Lua tools run on the server for requests without tools of their own:
        /// the client sees the answer, the log the call.
        @Test func theServersPluginToolsRunOnTheServer() async throws {
            let server = try await TideServer(["--plugin", "calculator"])
            let (code, json) = try await server.post(#"{"model": "m", "temperature": 0, "max_tokens": 40, "tool_choice": "required", "messages": [{"role": "user", "content": "What is 12.5% of 3400?"}]}"#)
            #expect(code == 200, "\(json)")
            let choice = try #require((json["choices"] as? [[String: Any]])?.first)
            let message = try #require(choice["message"] as? [String: Any])
            #expect(message["tool_calls"] == nil, "the server ran its own tool: \(message)")
            #expect(choice["finish_reason"] as? String != "tool_calls")
            #expect(!((message["content"] as? String) ?? "").contains("<tool_call>"))
            #expect(server.log(tail: 4000).contains("ran tools: calculate"), "\(server.log(tail: 4000))")
        }

        /// `tool_choice: "required"` makes a call in every reply, whatever the seed: the tool's enum
        /// makes each call's argument hold `</tool_call>` or a bracket, which a reader that split
        /// at the closing tag read as no call (an empty reply ending `stop`), and the free text
        /// beside it varies with the seed. Every call's id is unique.
        @Test func requiredIsACallWhateverTheSeed() async throws {
            let server = try await TideServer(["--parallel", "4"])
            let result = try #require(try server.python("""
                import json, sys, openai, concurrent.futures
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0)
                tool = {"type": "function", "function": {"name": "tag", "parameters": {"type": "object", "properties": {
                    "tag": {"enum": ["</tool_call>}}", "]\\"}", "<tool_call>"]}, "note": {"type": "string", "maxLength": 24}},
                    "required": ["tag", "note"]}}}
                def ask(seed):
                    reply = client.chat.completions.create(model="m", seed=seed, max_tokens=60, tools=[tool], tool_choice="required",
                        messages=[{"role": "user", "content": f"Tag item {seed}."}])
                    choice = reply.choices[0]
                    return {"finish": choice.finish_reason, "content": choice.message.content,
                            "calls": [json.loads(c.function.arguments) for c in choice.message.tool_calls or []],
                            "ids": [c.id for c in choice.message.tool_calls or []]}
                with concurrent.futures.ThreadPoolExecutor(8) as pool:
                    print(json.dumps(list(pool.map(ask, range(32)))))
                """) as? [[String: Any]])
            #expect(result.count == 32)
            for (seed, reply) in result.enumerated() {
                #expect(reply["finish"] as? String == "tool_calls", "seed \(seed): \(reply)")
                let calls = reply["calls"] as? [[String: String]] ?? []
                #expect(!calls.isEmpty && calls.allSatisfy { ["</tool_call>}}", "]\"}", "<tool_call>"].contains($0["tag"] ?? "") },
                        "seed \(seed): \(reply)")
            }
            // Each call's id is its own, in one reply and across replies, as OpenAI's random ids are.
            let ids = result.flatMap { $0["ids"] as? [String] ?? [] }
            #expect(Set(ids).count == ids.count && ids.count >= 32, "\(ids)")
            #expect(ids.allSatisfy { $0.hasPrefix("call_") && $0.count == 29 && $0.dropFirst(5).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } },
                    "\(ids)")
        }

        @Test func badToolRequestsAreRefusedWithTheField() async throws {
            let server = try await TideServer()
            let user = #"[{"role": "user", "content": "Hi"}]"#
            let tool = #"{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"n": {"type": "number"}}}}}"#
            let call = #"{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}"#
            let cases: [(String, String, String)] = [
                (#""tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"n": {"type": "number", "multipleOf": 3}}}}}], "messages": \#(user)"#,
                 "tools[0].function.parameters", "tools[0].function.parameters is not a schema Tide can enforce: /properties/n: unsupported keyword 'multipleOf'"),
                (#""tools": [{"type": "function", "function": {"name": "no spaces"}}], "messages": \#(user)"#,
                 "tools[0].function.name", "a tool's name is 1 to 64 letters, digits, '_' or '-'"),
                (#""tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}], "tool_choice": "required", "messages": \#(user)"#,
                 "tools[0].function.parameters", #"tools[0].function.parameters: its type must be "object" (the arguments are an object), not "array""#),
                (#""tools": [\#(tool), \#(tool)], "messages": \#(user)"#, "tools[1].function.name", "tools lists f twice"),
                (#""tools": [\#(tool)], "tool_choice": {"type": "function", "function": {"name": "g"}}, "messages": \#(user)"#,
                 "tool_choice", "tool_choice names g, which tools does not list; the tools are f"),
                (#""tools": [\#(tool)], "tool_choice": "sometimes", "messages": \#(user)"#, "tool_choice", #"tool_choice "sometimes" is not one Tide knows"#),
                (#""tools": [\#(tool)], "response_format": {"type": "json_object"}, "messages": \#(user)"#, "tool_choice",
                 "tools and a reply format cannot be combined"),
                (#""tool_choice": "required", "messages": \#(user)"#, "tools", "no tools are offered"),
                (#""messages": [{"role": "user", "content": "Hi"}, \#(call), {"role": "tool", "content": "1"}]"#,
                 "messages[2].tool_call_id", "messages[2].tool_call_id is missing"),
                (#""messages": [{"role": "user", "content": "Hi"}, \#(call), {"role": "tool", "tool_call_id": "call_9", "content": "1"}]"#,
                 "messages[2].tool_call_id", "answers the call call_9, but the assistant message before it made no call with that id"),
                (#""messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "not json"}}]}, {"role": "tool", "tool_call_id": "c", "content": "1"}]"#,
                 "messages[1].tool_calls[0].function.arguments", "must be a JSON object's text"),
                (#""functions": [{"name": "f"}], "messages": \#(user)"#, "functions", "send tools and tool_choice instead"),
            ]
            for (fields, param, message) in cases {
                let (code, json) = try await server.post("{\"model\": \"m\", " + fields + "}")
                #expect(code == 400, "\(fields)")
                let error = try #require(json["error"] as? [String: Any], "\(json)")
                #expect((error["message"] as? String ?? "").contains(message), "\(error)")
                #expect(error["param"] as? String == param, "\(error)")
            }
            // Each tool's schema can be enforced, but not all of them at once: the calls' grammar is too large.
            let words = (0..<100).map { #""choice-number-\#($0)-of-a-long-list""# }.joined(separator: ", ")
            let many = (0..<200).map { #"{"type": "function", "function": {"name": "f\#($0)", "parameters": {"type": "object", "properties": {"v": {"enum": [\#(words)]}}}}}"# }
            let (tooMany, refusal) = try await server.post(#"{"model": "m", "tool_choice": "required", "messages": \#(user), "tools": [\#(many.joined(separator: ", "))]}"#)
            #expect(tooMany == 400, "\(refusal)")
            #expect(((refusal["error"] as? [String: Any])?["message"] as? String ?? "").hasPrefix("the tools cannot be offered: "), "\(refusal)")
            let (code, json, _) = try await server.send("POST", "v1/completions",
                                                         body: Data(#"{"model": "m", "prompt": "Hi", "tools": [\#(tool)]}"#.utf8))
            #expect(code == 400)
            #expect(((json["error"] as? [String: Any])?["message"] as? String ?? "").contains("tools are offered in chat completions only"))
            let (after, _) = try await server.post(#"{"model": "m", "max_tokens": 4, "messages": \#(user)}"#)
            #expect(after == 200, "the server goes on")
        }

        /// `tide generate --remote url` with the calculator's tool and `choice`, one round: the
        /// call is run here (its line on standard error), then the answer comes without tools.
        func generateCallingTheCalculator(at url: URL, choice: String) throws -> TideProcess.Result {
            let result = try TideProcess.run(["generate", "--remote", url.absoluteString, "--temperature", "0", "--max-tokens", "60",
                                              "--plugin", "calculator", "--tool-choice", choice, "--max-tool-rounds", "1",
                                              "--parallel-tool-calls", "false", "--stats",
                                              "What is 12.5% of 3400?"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("tool calculate {"), "\(result.stderr)")
            #expect(result.stderr.contains("tool calls: 1 in 1 round ("), "\(result.stderr)")
            return result
        }

        /// `--remote` with a plugin's tools: Tide sends them to `tide serve` (which has no tools of
        /// its own), the server's grammar makes the call, and Tide runs the Lua tool.
        @Test func remoteToolsRunHereAgainstTideServe() async throws {
            let server = try await TideServer()
            let result = try generateCallingTheCalculator(at: server.url, choice: "required")
            #expect(result.stderr.contains("tool calculate {\"expression\":"), "valid by the server's grammar: \(result.stderr)")
            #expect(server.log(tail: 4000).contains("calls for the client: calculate"), "\(server.log(tail: 4000))")
        }

        /// The same against llama-cpp-python's server (its `chatml-function-calling` format, which
        /// makes a named call with a grammar from the tool's schema): the call is run here, whether
        /// its arguments make arithmetic or not.
        @Test func remoteToolsRunHereAgainstLlamaCppPython() async throws {
            let server = try await LlamaCppPythonServer(chatFormat: "chatml-function-calling")
            _ = try generateCallingTheCalculator(at: server.url, choice: "calculate")
        }
    }
}
