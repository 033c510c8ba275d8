import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TideTestSupport

extension CommandLineTests {
    /// OpenAI's Responses API on `tide serve`, seen by OpenAI's newest Python client (strict about
    /// the shapes it reads) and by an agent of OpenAI's Agents SDK: whole and streamed responses,
    /// stored ones (continued, read, deleted, and continued after a restart), tools whose calls
    /// the grammar holds, the policy on an agent's calls, a thinking model's reasoning, and
    /// refusals in OpenAI's shape. The words are certain where they are asserted: a logit bias
    /// writes "Yes", a grammar the calls, a plugin what the agent's model does.
    @Suite struct ServeResponsesTests {
        /// A plugin that plays an agent's model: the first request calls `get_weather`, the one
        /// after its result `to_fahrenheit`, the one after that answers with both results; "Say
        /// that again" repeats the last answer.
        static let twoTools = """
            -- Plays an agent's model: get_weather first, then to_fahrenheit (one call a turn),
            -- then an answer quoting both results; "Say that again" repeats the last answer.
            return {
              name = "two-tools",
              on_prompt = function(prompt)
                local messages = prompt.messages
                local last = messages[#messages]
                local results = {}
                for _, message in ipairs(messages) do
                  if message.role == "tool" then results[#results + 1] = message.content end
                end
                if last.role == "user" and last.content == "Say that again" then
                  for i = #messages - 1, 1, -1 do
                    if messages[i].role == "assistant" and messages[i].content ~= "" then return "Again: " .. messages[i].content end
                  end
                end
                -- One call a turn, whatever the model would write: the turns are the test's.
                prompt.params.parallel_tool_calls = false
                if last.role == "user" then prompt.params.tool_choice = "get_weather" return end
                if #results == 1 then prompt.params.tool_choice = "to_fahrenheit" return end
                return "Paris: " .. table.concat(results, ", then ")
              end,
            }
            """

        static let agent = """
            import json, sys, asyncio
            from openai import AsyncOpenAI
            from agents import Agent, Runner, function_tool, OpenAIResponsesModel, set_tracing_disabled
            set_tracing_disabled(True)
            client = AsyncOpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0)
            ran = []
            @function_tool
            def get_weather(city: str) -> str:
                \"\"\"The temperature in a city now, in Celsius.\"\"\"
                ran.append("get_weather")
                return "22 C"
            @function_tool
            def to_fahrenheit(celsius: float) -> str:
                \"\"\"Converts a temperature to Fahrenheit.\"\"\"
                ran.append("to_fahrenheit")
                return f"{celsius * 9 / 5 + 32:.0f} F"
            agent = Agent(name="weather", instructions="Answer with the tools.", tools=[get_weather, to_fahrenheit],
                model=OpenAIResponsesModel(model="m", openai_client=client))
            async def main():
                if sys.argv[2] == "first":
                    result = await Runner.run(agent, "How warm is Paris, in Fahrenheit?")
                else:
                    result = await Runner.run(agent, "Say that again", previous_response_id=sys.argv[3])
                print(json.dumps({"output": result.final_output, "ran": ran, "last": result.last_response_id,
                    "turns": len(result.raw_responses)}))
            asyncio.run(main())
            """

        static func twoToolsPlugin() throws -> String {
            try ScratchPlugins.folder(["two-tools": twoTools]).appendingPathComponent("two-tools.lua").path
        }

        /// The agent calls both tools over three turns; its last response is continued after the
        /// server restarts (the stored conversation is in the log's database).
        @Test func anAgentUsesTwoToolsAndItsChainOutlivesARestart() async throws {
            let data = try CommandLineTests.scratchFolder("responses")
            let environment = ["XDG_DATA_HOME": data.path]
            let first = try await TideServer(["--plugin", try Self.twoToolsPlugin()], environment: environment)
            let run = try #require(try first.python(Self.agent, arguments: ["first"], program: SetupCache.agentsPython) as? [String: Any])
            #expect(run["ran"] as? [String] == ["get_weather", "to_fahrenheit"] && run["turns"] as? Int == 3, "\(run)")
            let output = run["output"] as? String ?? ""
            #expect(output.hasPrefix("Paris: 22 C, then ") && output.hasSuffix(" F"), "\(run)")
            let last = try #require(run["last"] as? String)
            #expect(first.terminate(waitingAtMost: .seconds(30)) != nil)
            let second = try await TideServer(["--plugin", try Self.twoToolsPlugin()], environment: environment)
            let again = try #require(try second.python(Self.agent, arguments: ["again", last], program: SetupCache.agentsPython) as? [String: Any])
            #expect(again["output"] as? String == "Again: " + output, "\(again)")
        }

        /// `tool-allow` refuses the agent's second call before the agent sees it: the model reads
        /// the refusal as the call's result, and the agent's run goes on to its answer.
        @Test func thePolicyRefusesAnAgentsCallAndTheRunGoesOn() async throws {
            let server = try await TideServer(["--plugin", "tool-allow tools=get_weather", "--plugin", try Self.twoToolsPlugin()])
            let run = try #require(try server.python(Self.agent, arguments: ["first"], program: SetupCache.agentsPython) as? [String: Any])
            #expect(run["ran"] as? [String] == ["get_weather"], "\(run)")
            #expect(run["output"] as? String
                        == "Paris: 22 C, then error: tool-allow refused this call: to_fahrenheit is not among the tools allowed here (get_weather)",
                    "\(run)")
        }

        @Test func theOpenAIClientReadsWholeStreamedAndStoredResponses() async throws {
            let server = try await TideServer(["--plugin", try ServeMessagesTests.quoting(), "--metrics"])
            let result = try #require(try server.python("""
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0, _strict_response_validation=True)
                yes = {"logit_bias": {"Yes": 100}}
                whole = client.responses.create(model="m", input="Say yes", max_output_tokens=3, extra_body=yes)
                with client.responses.stream(model="m", input="Say yes", max_output_tokens=3, extra_body=yes) as stream:
                    events = list(stream)
                weather = {"type": "function", "name": "get_weather", "description": "The weather", "parameters": {"type": "object",
                    "properties": {"city": {"type": "string", "maxLength": 24}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                    "required": ["city", "unit"], "additionalProperties": False}, "strict": True}
                calls = []
                for seed in range(6):
                    called = client.responses.create(model="m", input="Weather in Paris?", tools=[weather], tool_choice="required",
                        parallel_tool_calls=False, max_output_tokens=400, temperature=1, extra_body={"seed": seed})
                    calls.append([[o.name, json.loads(o.arguments)] for o in called.output if o.type == "function_call"])
                call = [o for o in called.output if o.type == "function_call"][0]
                output = [{"type": "function_call_output", "call_id": call.call_id, "output": "22 C"}]
                answer = client.responses.create(model="m", previous_response_id=called.id, tools=[weather], input=output)
                with client.responses.stream(model="m", previous_response_id=called.id, tools=[weather], input=output) as stream:
                    streamed = list(stream)
                final = streamed[-1].response
                with client.responses.stream(model="m", input="Weather in Paris?", tools=[weather], tool_choice="required",
                        parallel_tool_calls=False) as stream:
                    argument_pieces = [e.delta for e in stream if e.type == "response.function_call_arguments.delta"]
                    streamed_response = stream.get_final_response()
                streamed_call = [o.type for o in streamed_response.output]
                streamed_item = streamed_response.output[0]
                # The streamed call is stored under the id the client saw: its result continues it.
                continued = client.responses.create(model="m", previous_response_id=streamed_response.id, tools=[weather],
                    input=[{"type": "function_call_output", "call_id": streamed_item.call_id, "output": "19 C"}])
                shaped = client.responses.create(model="m", input="Name a city and its population.", max_output_tokens=400,
                    text={"format": {"type": "json_schema", "name": "city", "strict": True, "schema": {"type": "object",
                        "properties": {"name": {"type": "string", "maxLength": 20}, "population": {"type": "integer", "maximum": 99999999}},
                        "required": ["name", "population"], "additionalProperties": False}}})
                got = client.responses.retrieve(answer.id)
                client.responses.delete(answer.id)
                errors = {}
                for name, call in {"gone": lambda: client.responses.retrieve(answer.id),
                        "unknown previous": lambda: client.responses.create(model="m", input="x", previous_response_id="resp_nope"),
                        "unstored": lambda: client.responses.create(model="m", input="x",
                            previous_response_id=client.responses.create(model="m", input="Say yes", max_output_tokens=1, store=False).id),
                        "hosted tool": lambda: client.responses.create(model="m", input="x", tools=[{"type": "web_search"}]),
                        "unknown call": lambda: client.responses.create(model="m", input=[{"type": "function_call_output", "call_id": "c1",
                            "output": "x"}]),
                        "image": lambda: client.responses.create(model="m", input=[{"role": "user", "content": [{"type": "input_image",
                            "image_url": "https://example.com/a.png"}]}]),
                        "background": lambda: client.responses.create(model="m", input="x", background=True)}.items():
                    try:
                        call()
                        errors[name] = None
                    except openai.APIStatusError as error:
                        errors[name] = [error.status_code, error.body.get("param") if isinstance(error.body, dict) else None,
                            str(error.body.get("message") if isinstance(error.body, dict) else error.body)]
                print(json.dumps({
                    "whole": [whole.output_text, whole.status, whole.incomplete_details.reason, whole.usage.output_tokens],
                    "stream": {"types": [e.type for e in events], "sequence": [e.sequence_number for e in events],
                               "text": "".join(e.delta for e in events if e.type == "response.output_text.delta"),
                               "ids": sorted({e.response.id for e in events if hasattr(e, "response")})},
                    "calls": calls, "answer": [answer.output_text, answer.status, answer.previous_response_id],
                    "streamed_answer": [final.output_text, streamed[-1].type], "streamed_call": streamed_call,
                    "argument_pieces": len(argument_pieces), "joined": "".join(argument_pieces) == streamed_item.arguments,
                    "continued": continued.output_text,
                    "got": got.output_text, "shaped": [shaped.status, shaped.output_text, shaped.text.format.type], "errors": errors}))
                """, program: SetupCache.agentsPython) as? [String: Any])
            let whole = try #require(result["whole"] as? [Any])
            #expect(whole.map { "\($0)" } == ["YesYesYes", "incomplete", "max_output_tokens", "3"], "\(whole)")
            let stream = try #require(result["stream"] as? [String: Any])
            let types = stream["types"] as? [String] ?? []
            #expect(types == ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
                              "response.output_text.delta", "response.output_text.delta", "response.output_text.delta",
                              "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.incomplete"],
                    "\(types)")
            #expect(stream["sequence"] as? [Int] == Array(0..<types.count) && stream["text"] as? String == "YesYesYes")
            #expect((stream["ids"] as? [String])?.count == 1, "one response id from the first event to the last")
            let calls = try #require(result["calls"] as? [[[Any]]])
            for call in calls {
                let arguments = call.first?.last as? [String: String] ?? [:]
                #expect(call.count == 1 && call.first?.first as? String == "get_weather" && Set(arguments.keys) == ["city", "unit"], "\(call)")
                #expect(["celsius", "fahrenheit"].contains(arguments["unit"] ?? ""), "valid for the schema: \(call)")
            }
            let answer = try #require(result["answer"] as? [String])
            #expect(answer.prefix(2) == ["The tool said: 22 C", "completed"] && answer.last?.hasPrefix("resp_") == true, "\(answer)")
            #expect(result["streamed_answer"] as? [String] == ["The tool said: 22 C", "response.completed"])
            #expect(result["streamed_call"] as? [String] == ["function_call"])
            #expect((result["argument_pieces"] as? Int ?? 0) > 1 && result["joined"] as? Bool == true, "arguments as generated: \(result)")
            #expect(result["continued"] as? String == "The tool said: 19 C", "\(result)")
            #expect(result["got"] as? String == "The tool said: 22 C")
            // text.format's schema holds the reply, whatever words the model picks.
            let shaped = try #require(result["shaped"] as? [String])
            #expect(shaped.first == "completed" && shaped.last == "json_schema", "\(shaped)")
            let city = try #require(try JSONSerialization.jsonObject(with: Data(shaped[1].utf8)) as? [String: Any], "\(shaped)")
            #expect(Set(city.keys) == ["name", "population"] && city["population"] is Int && (city["name"] as? String)?.count ?? 99 <= 20, "\(city)")
            let errors = try #require(result["errors"] as? [String: [Any]])
            for (name, status, param, words) in [("gone", 404, "response_id", "not found"),
                                                 ("unknown previous", 400, "previous_response_id", "resp_nope' not found"),
                                                 ("unstored", 400, "previous_response_id", "store: false"),
                                                 ("hosted tool", 400, "tools[0].type", "hosted tool 'web_search'"),
                                                 ("unknown call", 400, "input[0].call_id", "No tool call found"),
                                                 ("image", 400, "input[0].content[0].type", "text only"),
                                                 ("background", 400, "background", "background")] {
                let error = errors[name] ?? []
                #expect(error.first as? Int == status && error.dropFirst().first as? String == param, "\(name): \(error)")
                #expect((error.last as? String ?? "").contains(words), "\(name): \(error)")
            }
            let metrics = try await String(decoding: URLSession.shared.data(from: server.url.appendingPathComponent("metrics")).0, as: UTF8.self)
            #expect(metrics.contains(#"endpoint="/v1/responses""#) && metrics.contains(#"endpoint="/v1/responses/{id}""#), "\(metrics)")
        }

        @Test func aThinkingModelsReasoningComesAsAReasoningItem() async throws {
            let server = try await TideServer(["--model", try ReasoningCommandTests.qwenThree().path, "--plugin", try ReasoningCommandTests.plugin()])
            let result = try #require(try server.python("""
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0, _strict_response_validation=True)
                whole = client.responses.create(model="m", input="Capital of France?", max_output_tokens=40, reasoning={"summary": "auto"})
                with client.responses.stream(model="m", input="Capital of France?", max_output_tokens=40) as stream:
                    events = list(stream)
                    final = stream.get_final_response()
                print(json.dumps({"whole": [o.type for o in whole.output], "text": whole.output_text,
                    "summary": [s.text for o in whole.output if o.type == "reasoning" for s in o.summary],
                    "reasoning": "".join(e.delta for e in events if e.type == "response.reasoning_text.delta"),
                    "final": [o.type for o in final.output], "answer": final.output_text,
                    "tokens": whole.usage.output_tokens_details.reasoning_tokens}))
                """, program: SetupCache.agentsPython) as? [String: Any])
            #expect(result["whole"] as? [String] == ["reasoning", "message"] && result["text"] as? String == "Paris.", "\(result)")
            #expect((result["summary"] as? [String])?.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } == ["Let me see."], "\(result)")
            #expect((result["reasoning"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) == "Let me see.")
            #expect(result["final"] as? [String] == ["reasoning", "message"] && result["answer"] as? String == "Paris.")
            #expect((result["tokens"] as? Int ?? 0) > 0)
        }
    }
}
