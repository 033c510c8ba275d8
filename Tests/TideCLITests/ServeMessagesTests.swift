import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TideTestSupport

extension CommandLineTests {
    /// Anthropic's Messages API on `tide serve`, seen by Anthropic's own Python SDK (strict about
    /// the shapes it reads): whole, streamed and counted replies, tools and the SDK's tool runner,
    /// the policy on both sides of a client's tool call, a thinking model's block, refusals in
    /// Anthropic's shape, either key header and a stream the client cuts. The words are certain
    /// where they are asserted: a logit bias writes "Yes", a grammar the calls, a plugin the
    /// answer after a tool's result.
    @Suite struct ServeMessagesTests {
        /// The quoting plugin's file, for `--plugin`.
        static func quoting() throws -> String {
            try ScratchPlugins.folder(["quote-results": ScratchPlugins.quoteResults]).appendingPathComponent("quote-results.lua").path
        }

        static let preamble = """
            import json, sys, anthropic
            base = sys.argv[1].removesuffix("/v1")
            client = anthropic.Anthropic(base_url=base, api_key="unused", max_retries=0, _strict_response_validation=True)
            ask = [{"role": "user", "content": "Say yes"}]
            yes = {"logit_bias": {"Yes": 100}}
            weather = {"name": "get_weather", "description": "The weather in a city now", "input_schema": {"type": "object",
                "properties": {"city": {"type": "string", "maxLength": 24}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                "required": ["city", "unit"], "additionalProperties": False}}
            clock = {"name": "get_time", "description": "The time now", "input_schema": {"type": "object", "properties": {}}}

            """

        @Test func theAnthropicClientReadsWholeStreamedAndCountedReplies() async throws {
            let server = try await TideServer(["--metrics"])
            let result = try #require(try server.python(Self.preamble + """
                whole = client.messages.create(model="m", max_tokens=3, messages=ask, extra_body=yes)
                stopped = client.messages.create(model="m", max_tokens=8, messages=ask, stop_sequences=["Yes"], extra_body=yes)
                pieces = []
                with client.messages.stream(model="m", max_tokens=3, messages=ask, extra_body=yes) as stream:
                    for text in stream.text_stream:
                        pieces.append(text)
                    final = stream.get_final_message()
                counted = client.messages.count_tokens(model="m", messages=ask)
                print(json.dumps({
                    "whole": {"text": whole.content[0].text, "stop": whole.stop_reason, "output": whole.usage.output_tokens,
                              "input": whole.usage.input_tokens + whole.usage.cache_read_input_tokens, "id": whole.id},
                    "stopped": {"stop": stopped.stop_reason, "sequence": stopped.stop_sequence, "text": stopped.content[0].text},
                    "streamed": {"text": "".join(pieces), "final": final.content[0].text, "stop": final.stop_reason,
                                 "output": final.usage.output_tokens},
                    "counted": counted.input_tokens}))
                """, program: SetupCache.agentsPython) as? [String: Any])
            let whole = try #require(result["whole"] as? [String: Any])
            #expect(whole["text"] as? String == "YesYesYes" && whole["stop"] as? String == "max_tokens" && whole["output"] as? Int == 3, "\(whole)")
            #expect((whole["id"] as? String ?? "").hasPrefix("msg_"))
            let stopped = try #require(result["stopped"] as? [String: Any])
            #expect(stopped["stop"] as? String == "stop_sequence" && stopped["sequence"] as? String == "Yes" && stopped["text"] as? String == "",
                    "\(stopped)")
            let streamed = try #require(result["streamed"] as? [String: Any])
            #expect(streamed["text"] as? String == "YesYesYes" && streamed["final"] as? String == "YesYesYes", "\(streamed)")
            #expect(streamed["stop"] as? String == "max_tokens" && streamed["output"] as? Int == 3)
            // Counting reads the prompt the reply read: its tokens, cached or not.
            #expect(result["counted"] as? Int == whole["input"] as? Int, "\(result)")
            let metrics = try await String(decoding: URLSession.shared.data(from: server.url.appendingPathComponent("metrics")).0, as: UTF8.self)
            #expect(metrics.contains(#"endpoint="/v1/messages""#) && metrics.contains(#"endpoint="/v1/messages/count_tokens""#))
        }

        /// Calls made by the grammar are valid for the schema whatever the seed; the tool runner
        /// of the SDK runs the loop to the answer (refused `thread`, it sends the whole history).
        @Test func theAnthropicClientCallsToolsAndItsToolRunnerCompletesTheLoop() async throws {
            let server = try await TideServer(["--plugin", try Self.quoting()])
            let result = try #require(try server.python(Self.preamble + """
                from anthropic import beta_tool
                question = [{"role": "user", "content": "Weather in Paris?"}]
                calls = []
                for seed in range(8):
                    called = client.messages.create(model="m", max_tokens=400, messages=question, tools=[weather, clock],
                        tool_choice={"type": "tool", "name": "get_weather"}, extra_body={"seed": seed, "temperature": 1})
                    calls.append({"stop": called.stop_reason, "uses": [{"id": b.id, "name": b.name, "input": b.input}
                        for b in called.content if b.type == "tool_use"]})
                with client.messages.stream(model="m", max_tokens=400, messages=question, tools=[weather, clock],
                        tool_choice={"type": "any", "disable_parallel_tool_use": True}) as stream:
                    pieces = [event.partial_json for event in stream if event.type == "input_json"]
                    streamed = stream.get_final_message()
                use = [b for b in called.content if b.type == "tool_use"][0]
                history = question + [{"role": "assistant", "content": called.content},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "22 C and sunny"}]}]
                answer = client.messages.create(model="m", max_tokens=40, messages=history, tools=[weather])
                ran = []
                @beta_tool
                def get_weather(city: str) -> str:
                    \"\"\"The weather in a city now.

                    Args:
                        city: The city.
                    \"\"\"
                    ran.append(city)
                    return "18 C and windy"
                runner = client.beta.messages.tool_runner(model="m", max_tokens=400, tools=[get_weather],
                    tool_choice={"type": "any", "disable_parallel_tool_use": True}, messages=question)
                replies = [message for message in runner]
                print(json.dumps({"calls": calls,
                    "streamed": {"stop": streamed.stop_reason, "uses": [{"name": b.name, "input": b.input} for b in streamed.content
                        if b.type == "tool_use"], "pieces": len(pieces), "joined": json.loads("".join(pieces))},
                    "answer": {"text": answer.content[0].text, "stop": answer.stop_reason},
                    "runner": {"ran": len(ran), "stops": [m.stop_reason for m in replies], "last": replies[-1].content[-1].text}}))
                """, program: SetupCache.agentsPython) as? [String: Any])
            let calls = try #require(result["calls"] as? [[String: Any]])
            #expect(calls.count == 8)
            for call in calls {
                let uses = call["uses"] as? [[String: Any]] ?? []
                #expect(call["stop"] as? String == "tool_use" && uses.count >= 1, "\(call)")
                for use in uses {
                    let input = use["input"] as? [String: Any] ?? [:]
                    #expect(use["name"] as? String == "get_weather" && Set(input.keys) == ["city", "unit"], "\(use)")
                    #expect(["celsius", "fahrenheit"].contains(input["unit"] as? String ?? ""), "valid for the schema: \(use)")
                    #expect((input["city"] as? String)?.count ?? 99 <= 24)
                }
            }
            let streamed = try #require(result["streamed"] as? [String: Any])
            #expect(streamed["stop"] as? String == "tool_use" && (streamed["uses"] as? [Any])?.count == 1, "\(streamed)")
            // The input came as it was generated, in pieces that join into the call's input.
            #expect((streamed["pieces"] as? Int ?? 0) > 1, "\(streamed)")
            let joined = streamed["joined"] as? [String: String] ?? [:]
            #expect(Set(joined.keys) == ["city", "unit"] && joined == (streamed["uses"] as? [[String: Any]])?.first?["input"] as? [String: String],
                    "\(streamed)")
            let answer = try #require(result["answer"] as? [String: String])
            #expect(answer == ["text": "The tool said: 22 C and sunny", "stop": "end_turn"])
            let runner = try #require(result["runner"] as? [String: Any])
            #expect(runner["ran"] as? Int == 1 && runner["stops"] as? [String] == ["tool_use", "end_turn"], "\(runner)")
            #expect(runner["last"] as? String == "The tool said: 18 C and windy")
        }

        /// `tool-allow` refuses a call the model makes before the client sees it (the model reads
        /// the refusal as the call's result and goes on); `redact-emails` masks an address in a
        /// result the client sends before the model reads it.
        @Test func thePolicyChecksTheModelsCallsAndTheClientsResults() async throws {
            let server = try await TideServer(["--plugin", "tool-allow tools=get_time", "--plugin", "redact-emails",
                                               "--plugin", try Self.quoting(), "--trace-hooks"])
            let result = try #require(try server.python(Self.preamble + """
                refused = client.messages.create(model="m", max_tokens=400, messages=[{"role": "user", "content": "Weather in Paris?"}],
                    tools=[weather, clock], tool_choice={"type": "tool", "name": "get_weather"})
                allowed = client.messages.create(model="m", max_tokens=400, messages=[{"role": "user", "content": "What time is it?"}],
                    tools=[weather, clock], tool_choice={"type": "tool", "name": "get_time", "disable_parallel_tool_use": True})
                use = [b for b in allowed.content if b.type == "tool_use"]
                redacted = client.messages.create(model="m", max_tokens=40, tools=[weather, clock], messages=[
                    {"role": "user", "content": "What time is it?"}, {"role": "assistant", "content": allowed.content},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use[0].id, "content": "12:00, ask bob@example.com"}]}])
                print(json.dumps({"refused": [b.type for b in refused.content], "refused_text": refused.content[-1].text,
                    "refused_stop": refused.stop_reason, "allowed": [b.name for b in use], "redacted": redacted.content[0].text}))
                """, program: SetupCache.agentsPython) as? [String: Any])
            #expect(result["refused"] as? [String] == ["text"] && result["refused_stop"] as? String == "end_turn", "\(result)")
            #expect(result["refused_text"] as? String
                        == "The tool said: error: tool-allow refused this call: get_weather is not among the tools allowed here (get_time)")
            #expect(result["allowed"] as? [String] == ["get_time"])
            #expect(result["redacted"] as? String == "The tool said: 12:00, ask [redacted]", "\(result)")
            let trace = server.log(tail: 400_000)
            #expect(trace.contains(#""hook":"on_tool_call""#) && trace.contains("from client"), "\(trace)")
        }

        @Test func aThinkingModelsBlockComesBackAsThinking() async throws {
            let server = try await TideServer(["--model", try ReasoningCommandTests.qwenThree().path, "--plugin", try ReasoningCommandTests.plugin()])
            let result = try #require(try server.python(Self.preamble + """
                question = [{"role": "user", "content": "Capital of France?"}]
                whole = client.messages.create(model="m", max_tokens=40, messages=question)
                with client.messages.stream(model="m", max_tokens=40, messages=question) as stream:
                    thinking = [event.thinking for event in stream if event.type == "thinking"]
                    final = stream.get_final_message()
                print(json.dumps({"whole": [[b.type, getattr(b, "thinking", None) or getattr(b, "text", None)] for b in whole.content],
                    "streamed": "".join(thinking), "final": [b.type for b in final.content], "answer": final.content[-1].text}))
                """, program: SetupCache.agentsPython) as? [String: Any])
            let whole = try #require(result["whole"] as? [[String]])
            #expect(whole.map { $0[0] } == ["thinking", "text"], "\(whole)")
            #expect(whole.first?[1].trimmingCharacters(in: .whitespacesAndNewlines) == "Let me see." && whole.last?[1] == "Paris.", "\(whole)")
            #expect((result["streamed"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) == "Let me see.", "\(result)")
            #expect(result["final"] as? [String] == ["thinking", "text"] && result["answer"] as? String == "Paris.", "\(result)")
        }

        /// Refusals in Anthropic's shape, read by its SDK as the errors it raises; with
        /// `--api-key`, the key in `x-api-key` (as the SDK sends it) or `Authorization`.
        @Test func refusalsAndKeysComeInAnthropicsShape() async throws {
            let server = try await TideServer(["--api-key", "sesame"])
            let result = try #require(try server.python(Self.preamble + """
                import urllib.request, urllib.error
                client = anthropic.Anthropic(base_url=base, api_key="sesame", max_retries=0, _strict_response_validation=True)
                refusals = {}
                for name, call in {
                    "unknown field": lambda: client.messages.create(model="m", max_tokens=3, messages=ask, extra_body={"frobnicate": 1}),
                    "unknown id": lambda: client.messages.create(model="m", max_tokens=3, messages=ask + [{"role": "assistant", "content": "Hi"},
                        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_nope", "content": "x"}]}]),
                    "image": lambda: client.messages.create(model="m", max_tokens=3, messages=[{"role": "user", "content": [
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}]),
                    "wrong key": lambda: anthropic.Anthropic(base_url=base, api_key="wrong", max_retries=0).messages.create(
                        model="m", max_tokens=3, messages=ask),
                }.items():
                    try:
                        call()
                        refusals[name] = None
                    except anthropic.APIStatusError as error:
                        refusals[name] = [error.status_code, type(error).__name__, error.body["error"]["type"], error.body["error"]["message"]]
                def post(path, body, headers):
                    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                        headers={"content-type": "application/json", **headers})
                    try:
                        with urllib.request.urlopen(request) as response:
                            return [response.status, json.load(response)]
                    except urllib.error.HTTPError as error:
                        return [error.code, json.load(error)]
                plain = {"model": "m", "max_tokens": 2, "messages": ask}
                print(json.dumps({"refusals": refusals,
                    "x-api-key": post("/v1/messages", plain, {"x-api-key": "sesame", "anthropic-version": "2023-06-01"})[0],
                    "bearer": post("/v1/messages", plain, {"authorization": "Bearer sesame"})[0],
                    "none": post("/v1/messages", plain, {}),
                    "no max_tokens": post("/v1/messages", {"model": "m", "messages": ask}, {"x-api-key": "sesame"}),
                    "unknown path": post("/v1/messages/batches", plain, {"x-api-key": "sesame"})}))
                """, program: SetupCache.agentsPython) as? [String: Any])
            let refusals = try #require(result["refusals"] as? [String: [Any]])
            for (name, words) in ["unknown field": "frobnicate: Extra inputs are not permitted", "unknown id": "toolu_nope answers no tool_use",
                                  "image": "reads text only"] {
                let refusal = refusals[name] ?? []
                #expect(refusal.count == 4 && refusal[0] as? Int == 400 && refusal[1] as? String == "BadRequestError", "\(name): \(refusal)")
                #expect(refusal.count == 4 && refusal[2] as? String == "invalid_request_error" && (refusal[3] as? String ?? "").contains(words),
                        "\(name): \(refusal)")
            }
            #expect(refusals["wrong key"]?.prefix(3).map { "\($0)" } == ["401", "AuthenticationError", "authentication_error"], "\(refusals)")
            #expect(result["x-api-key"] as? Int == 200 && result["bearer"] as? Int == 200, "\(result)")
            for (name, status, words) in [("none", 401, "x-api-key"), ("no max_tokens", 400, "max_tokens: Field required"),
                                          ("unknown path", 404, "There is no /v1/messages/batches")] {
                let answer = result[name] as? [Any] ?? []
                let body = answer.last as? [String: Any] ?? [:]
                let error = body["error"] as? [String: Any] ?? [:]
                #expect(answer.first as? Int == status && body["type"] as? String == "error", "\(name): \(answer)")
                #expect((error["message"] as? String ?? "").contains(words), "\(name): \(answer)")
            }
        }

        /// A stream the client cuts frees its sequence at once: the reply is cancelled, not run
        /// to its 4000 tokens, and the one sequence answers the next request.
        @Test func aStreamTheClientCutsFreesItsSequence() async throws {
            let server = try await TideServer(["--parallel", "1", "--plugin", ScratchPlugins.noEndFile])
            let result = try #require(try server.python(Self.preamble + """
                import time, http.client, urllib.parse, urllib.request
                address = urllib.parse.urlsplit(base)
                def busy():
                    with urllib.request.urlopen(base + "/health") as response:
                        return json.load(response)["busy"]
                body = {"model": "m", "stream": True, "max_tokens": 4000, "messages": [{"role": "user", "content": "Write a long story."}]}
                connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
                connection.request("POST", "/v1/messages", json.dumps(body), {"content-type": "application/json"})
                response = connection.getresponse()
                received = [response.readline().decode().strip() for _ in range(12)]
                held = busy()
                response.close()
                connection.close()
                start = time.monotonic()
                while busy() and time.monotonic() - start < 30:
                    time.sleep(0.02)
                after = busy()
                reply = client.messages.create(model="m", max_tokens=3, messages=ask, extra_body=yes)
                print(json.dumps({"busy": held, "after": after, "events": [line for line in received if line.startswith("event:")],
                    "next": reply.content[0].text}))
                """, program: SetupCache.agentsPython) as? [String: Any])
            #expect(result["busy"] as? Int == 1 && result["after"] as? Int == 0, "\(result)")
            #expect((result["events"] as? [String])?.prefix(3) == ["event: message_start", "event: ping", "event: content_block_start"])
            #expect(result["next"] as? String == "YesYesYes")
            let log = server.log(tail: 4000)
            #expect(log.contains("stop cancelled, streamed") || log.contains("ended early"), "\(log)")
        }
    }
}
