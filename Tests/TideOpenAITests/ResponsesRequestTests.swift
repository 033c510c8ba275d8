import Testing
import TideCore
import TideFormat
import TideOpenAI

/// OpenAI's Responses API read into the chat completion Tide answers, and its stream's events:
/// every item, field and refusal, with no model.
@Suite struct ResponsesRequestTests {
    func read(_ body: String, after earlier: [ChatMessage] = []) throws -> ResponsesRequest {
        try ResponsesRequest(parsing: try JSONValue(parsing: body), after: earlier)
    }

    @Test func itemsBecomeAConversationAfterTheStoredOne() throws {
        let earlier = [ChatMessage(.user, "Before."), ChatMessage(.assistant, "Noted.")]
        let request = try read(#"""
            {"model": "m", "instructions": "Be brief.", "max_output_tokens": 50, "temperature": 0.3, "top_k": 5,
             "reasoning": {"effort": "low", "summary": "auto"}, "store": false, "metadata": {"k": "v"}, "include": [],
             "previous_response_id": "resp_1", "parallel_tool_calls": false, "tool_choice": {"type": "function", "name": "f"},
             "tools": [{"type": "function", "name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}, "strict": true}],
             "text": {"format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}, "strict": true}},
             "input": [
               {"role": "developer", "content": "Use f."},
               {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go"}]},
               {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Call f."}]},
               {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{\"x\": 1}", "id": "fc_1", "status": "completed"},
               {"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_text", "text": "2"}]}]}
            """#, after: earlier)
        let messages = request.chat.messages
        #expect(messages.map(\.role) == ["system", "user", "assistant", "system", "user", "assistant", "tool"])
        #expect(messages[0].content == "Be brief." && messages[1].content == "Before." && messages[3].content == "Use f.")
        #expect(messages[5].reasoningContent == "Call f." && messages[5].toolCalls?.first?.id == "c1")
        #expect(messages[6].content == "2" && messages[6].toolCallID == "c1")
        #expect(request.conversation.count == 6, "the instructions are not carried on")
        #expect(request.previousResponseID == "resp_1" && !request.store && request.summarisesReasoning && request.instructions == "Be brief.")
        let parameters = try request.chat.parameters(over: GenerationParameters())
        #expect(parameters.maxTokens == 50 && parameters.temperature == 0.3 && parameters.topK == 5 && parameters.reasoningBudget == 1024)
        #expect(request.tools?.choice == .named("f") && request.tools?.parallel == false && request.format != nil)
        #expect(try ResponsesRequest.previousResponseID(in: JSONValue(parsing: #"{"previous_response_id": "resp_9"}"#)) == "resp_9")
        #expect(try read(#"{"model": "m", "input": "Hi"}"#).chat.messages.map(\.content) == ["Hi"])
    }

    @Test func whatCannotBeHonouredIsRefusedNamingTheField() throws {
        let cases: [(String, String, String)] = [
            (#"{"model": "m", "input": "x", "frobnicate": 1}"#, "frobnicate", "Unknown parameter"),
            (#"{"model": "m", "input": "x", "max_tokens": 3}"#, "max_tokens", "Unknown parameter"),
            (#"{"model": "m"}"#, "input", "missing"),
            (#"{"model": "m", "input": "x", "background": true}"#, "background", "background"),
            (#"{"model": "m", "input": "x", "conversation": "conv_1"}"#, "conversation", "previous_response_id"),
            (#"{"model": "m", "input": "x", "top_logprobs": 2}"#, "top_logprobs", "chat/completions"),
            (#"{"model": "m", "input": "x", "include": ["message.output_text.logprobs"]}"#, "include[0]", "not given"),
            (#"{"model": "m", "input": "x", "truncation": "auto"}"#, "truncation", "never cut"),
            (#"{"model": "m", "input": "x", "reasoning": {"effort": "extreme"}}"#, "reasoning.effort", "not one Tide knows"),
            (#"{"model": "m", "input": "x", "tools": [{"type": "file_search"}]}"#, "tools[0].type", "hosted tool"),
            (#"{"model": "m", "input": "x", "tools": [{"type": "function", "name": "f"}], "tool_choice": {"type": "function", "name": "g"}}"#,
             "tool_choice.name", "no function"),
            (#"{"model": "m", "input": "x", "text": {"format": {"type": "json_schema", "name": "o"}}}"#, "text.format.schema", "missing"),
            (#"{"model": "m", "input": "x", "text": {"verbosity": "low"}}"#, "text.verbosity", "not honoured"),
            (#"{"model": "m", "input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]}"#, "input[0].content[0].type", "text only"),
            (#"{"model": "m", "input": [{"type": "function_call_output", "call_id": "c", "output": "x"}]}"#, "input[0].call_id", "No tool call found"),
            (#"{"model": "m", "input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "[1]"}]}"#, "input[0].arguments", "JSON object"),
            (#"{"model": "m", "input": [{"type": "item_reference", "id": "msg_1"}]}"#, "input[0].type", "send the item itself"),
            (#"{"model": "m", "input": [{"type": "reasoning", "id": "rs", "summary": [], "encrypted_content": "x"}]}"#,
             "input[0].encrypted_content", "never gives it out"),
            (#"{"model": "m", "input": [{"role": "tool", "content": "x"}]}"#, "input[0].role", "not one Tide knows"),
            (#"{"model": "m", "input": [{"role": "user", "content": "a\u0000b"}]}"#, "input[0].content", "NUL"),
            (#"{"model": "m", "input": "x", "metadata": {"k": 1}}"#, "metadata", "string value"),
            (#"{"model": "m", "input": "x", "previous_response_id": 3}"#, "previous_response_id", "a string"),
        ]
        for (body, field, words) in cases {
            do {
                _ = try read(body)
                Issue.record("accepted: \(body)")
            } catch let error as RequestFieldError {
                #expect(error.field == field && error.message.contains(words), "\(body): \(error.field): \(error.message)")
            }
        }
    }

    /// Every event numbered from 0, every item with its index and one id from added to done, a
    /// reasoning item before the message, the calls after, then the whole response.
    @Test func aStreamNumbersItsEventsAndKeepsEachItemsID() throws {
        let request = try read(#"{"model": "m", "input": "x", "reasoning": {"summary": "auto"}}"#)
        var stream = ResponsesStream(ResponsesReply(created: 0, model: "m", request: request, parameters: GenerationParameters()))
        var events = stream.start()
        events += stream.add("Hmm", as: .reasoning)
        events += stream.add("Hi", as: .text)
        events += stream.add(" there", as: .text)
        var summary = ReplySummary(stopReason: .endOfGeneration, statistics: GenerationStatistics(), rawText: "", text: "Hi there", storedText: "Hi there")
        summary.toolCalls = [ToolCall(id: "call_1", name: "f", arguments: #"{"x": 1}"#)]
        events += stream.finish(summary)
        func field(_ data: JSONValue, _ key: String) -> JSONValue? {
            guard case .object(let object) = data else { return nil }
            return object[key]
        }
        #expect(events.map { field($0.data, "sequence_number") } == events.indices.map { JSONValue.number(Double($0)) })
        #expect(events.map(\.name) == [
            "response.created", "response.in_progress",
            "response.output_item.added", "response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.done",
            "response.content_part.done", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
            "response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
            "response.output_text.done", "response.content_part.done", "response.output_item.done",
            "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
            "response.output_item.done", "response.completed",
        ], "\(events.map(\.name))")
        let indices = events.compactMap { field($0.data, "output_index") }
        #expect(indices == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2].map { JSONValue.number($0) })
        let completed = try #require(events.last.flatMap { field($0.data, "response") })
        let output = field(completed, "output")
        #expect(output.map { "\($0.text)" }?.contains(#""type":"function_call","id":"fc_"#) == true)
        #expect(field(completed, "status") == .string("completed"))
        guard case .array(let items)? = output else { Issue.record("no output"); return }
        let added = events.filter { $0.name == "response.output_item.added" }.compactMap { field($0.data, "item").flatMap { field($0, "id") } }
        #expect(items.compactMap { field($0, "id") } == added, "each item keeps its id")
    }

    /// A client's reader takes a call whose arguments come whole with its item's end, as well as
    /// in pieces; a failed response is the server's error.
    @Test func theClientsReaderTakesCallsWholeOrInPiecesAndFailuresAsErrors() throws {
        var reader = ResponsesEventReader()
        func read(_ data: String) throws -> [StreamedPiece] { try reader.read(ServerSentEvent(name: "message", data: data)) }
        #expect(try read(#"{"type": "response.created", "response": {}}"#) == [])
        #expect(try read(#"{"type": "response.reasoning_summary_text.delta", "delta": "Hm"}"#) == [.reasoning("Hm")])
        #expect(try read(#"{"type": "response.output_text.delta", "delta": "Hi"}"#) == [.text("Hi")])
        #expect(try read(#"{"type": "response.output_item.added", "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": ""}}"#)
                    == [.toolCall(WireToolCallDelta(index: 0, id: "c1", type: "function", function: .init(name: "f", arguments: "")))])
        #expect(try read(#"{"type": "response.output_item.done", "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"}}"#)
                    == [.toolCall(WireToolCallDelta(index: 0, function: .init(arguments: "{}")))])
        #expect(try read(#"{"type": "response.completed", "response": {}}"#) == [.finished])
        #expect(throws: StreamedError.server("out of memory")) {
            try read(#"{"type": "response.failed", "response": {"error": {"code": "server_error", "message": "out of memory"}}}"#)
        }
        #expect(throws: StreamedError.self) { try read("[DONE]") }
        // The body a client sends: the conversation as items, nothing stored.
        var parameters = GenerationParameters()
        parameters.maxTokens = 9
        let call = ToolCall(id: "c1", name: "f", arguments: "{}")
        let body = ResponsesClient.body(model: "m", messages: [ChatMessage(.system, "S"), ChatMessage(.user, "Q"),
                                                               ChatMessage(.assistant, "", toolCalls: [call]),
                                                               ChatMessage(.tool, "R", toolCallID: "c1")], parameters: parameters).text
        #expect(body.contains(#""input":[{"role":"system","content":"S"},{"role":"user","content":"Q"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"R"}]"#), "\(body)")
        #expect(body.contains(#""store":false"#) && body.contains(#""max_output_tokens":9"#) && !body.contains("max_tokens"), "\(body)")
    }
}
