import Testing
import TideAnthropic
import TideCore
import TideFormat
import TideOpenAI

/// Anthropic's Messages API read into the chat completion Tide answers: every block, field and
/// refusal, with no model.
@Suite struct MessagesRequestTests {
    func read(_ body: String, for purpose: MessagesRequest.Purpose = .reply) throws -> MessagesRequest {
        try MessagesRequest(parsing: try JSONValue(parsing: body), for: purpose)
    }

    @Test func aConversationWithToolsAndThinkingBecomesAChatCompletion() throws {
        let request = try read(#"""
            {"model": "m", "max_tokens": 64, "system": [{"type": "text", "text": "Be brief. "}, {"type": "text", "text": "Be kind."}],
             "stop_sequences": ["END"], "temperature": 0.5, "top_k": 7, "min_p": 0.1, "thinking": {"type": "enabled", "budget_tokens": 32},
             "metadata": {"user_id": "u1"}, "stream": true,
             "messages": [
               {"role": "user", "content": "Weather?"},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": "Look it up.", "signature": ""},
                 {"type": "text", "text": "Checking."}, {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "no service"}],
                 "is_error": true, "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "And now?"}]}],
             "tools": [{"name": "get_weather", "description": "Weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
             "tool_choice": {"type": "any", "disable_parallel_tool_use": true}}
            """#)
        let messages = request.chat.messages
        #expect(messages.map(\.role) == ["system", "user", "assistant", "tool", "user"])
        #expect(messages[0].content == "Be brief. Be kind.")
        #expect(messages[2].content == "Checking." && messages[2].reasoningContent == "Look it up.")
        #expect(messages[2].toolCalls?.map(\.function.name) == ["get_weather"])
        #expect(messages[2].toolCalls?.first?.function.arguments == #"{"city":"Paris"}"#)
        #expect(messages[3].toolCallID == "toolu_1" && messages[3].content == "Error: no service")
        #expect(messages[4].content == "And now?")
        #expect(request.chat.stream == true)
        let parameters = try request.chat.parameters(over: GenerationParameters())
        #expect(parameters.maxTokens == 64 && parameters.stop == ["END"] && parameters.temperature == 0.5 && parameters.topK == 7)
        #expect(parameters.minP == 0.1 && parameters.reasoningBudget == 32)
        let tools = try #require(request.tools)
        #expect(tools.tools.map(\.name) == ["get_weather"] && tools.choice == .required && !tools.parallel)
        #expect(request.chat.offersTools)
    }

    @Test func toolChoicesAndThinkingModes() throws {
        let tool = #"{"name": "t", "input_schema": {"type": "object", "properties": {}}}"#
        for (choice, expected) in [(#"{"type": "auto"}"#, ToolChoice.auto), (#"{"type": "none"}"#, .none),
                                   (#"{"type": "tool", "name": "t"}"#, .named("t"))] {
            let request = try read(#"{"model": "m", "max_tokens": 1, "messages": [], "tools": [\#(tool)], "tool_choice": \#(choice)}"#)
            #expect(request.tools?.choice == expected && request.tools?.parallel == true)
        }
        for (thinking, budget) in [(#"{"type": "disabled"}"#, 0), (#"{"type": "adaptive"}"#, nil as Int?)] {
            let request = try read(#"{"model": "m", "max_tokens": 1, "messages": [], "thinking": \#(thinking)}"#)
            #expect(try request.chat.parameters(over: GenerationParameters()).reasoningBudget == budget)
        }
        // Counting takes no max_tokens, and the same messages, system and tools.
        let counted = try read(#"{"model": "m", "system": "s", "messages": [{"role": "user", "content": "hi"}], "tools": [\#(tool)]}"#,
                               for: .count)
        #expect(counted.chat.messages.count == 2 && counted.tools?.tools.count == 1)
    }

    /// Each field Tide cannot honour, and each malformed one, is refused naming it.
    @Test func whatCannotBeHonouredIsRefusedNamingTheField() throws {
        let user = #"{"role": "user", "content": "hi"}"#
        let call = #"{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]}"#
        let cases: [(String, MessagesRequest.Purpose, String, String)] = [
            (#"{"model": "m", "messages": [\#(user)]}"#, .reply, "max_tokens", "Field required"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "frobnicate": 1}"#, .reply, "frobnicate", "Extra inputs are not permitted"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "stop": ["x"]}"#, .reply, "stop", "Extra inputs"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)]}"#, .count, "max_tokens", "count_tokens takes"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "container": "c"}"#, .reply, "container", "code-execution"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "thread": {"type": "new"}}"#, .reply, "thread", "send the whole"),
            (#"{"model": "m", "max_tokens": 1.5, "messages": [\#(user)]}"#, .reply, "max_tokens", "whole number"),
            (#"{"model": "m", "max_tokens": 1, "messages": [{"role": "system", "content": "x"}]}"#, .reply, "messages[0].role", "top-level system"),
            (#"{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}]}"#, .reply,
             "messages[0].content[0].type", "text only"),
            (#"{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]}]}"#,
             .reply, "messages[0].content[0].type", "text or tool_result"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]}]}"#,
             .reply, "messages[1].content[0].tool_use_id", "made no call"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user), \#(call), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b"}]}]}"#,
             .reply, "messages[2].content[0].tool_use_id", "its calls are a"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user), \#(call), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}, {"type": "tool_result", "tool_use_id": "a"}]}]}"#,
             .reply, "messages[2].content[1].tool_use_id", "answered twice"),
            (#"{"model": "m", "max_tokens": 1, "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": "x"}]}]}"#,
             .reply, "messages[0].content[0].input", "must be an object"),
            (#"{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "text", "text": "a\u0000b"}]}]}"#,
             .reply, "messages[0].content[0].text", "NUL"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "tools": [{"type": "web_search_20250305", "name": "web_search"}]}"#,
             .reply, "tools[0].type", "server tool"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "tools": [{"name": "t"}]}"#, .reply, "tools[0].input_schema", "Field required"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "tools": [{"name": "bad name", "input_schema": {"type": "object"}}]}"#,
             .reply, "tools[0].name", "letters"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "tool_choice": {"type": "tool", "name": "x"}}"#, .reply, "tool_choice.name", "does not list"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "tool_choice": {"type": "sometimes"}}"#, .reply, "tool_choice.type", "not one Tide knows"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "thinking": {"type": "enabled"}}"#, .reply, "thinking.budget_tokens", "whole number"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "metadata": {"user_id": 3}}"#, .reply, "metadata.user_id", "string"),
            (#"{"model": "m", "max_tokens": 1, "messages": [\#(user)], "stop_sequences": "x"}"#, .reply, "stop_sequences", "a list of strings"),
            (#"{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi", "name": "bob"}]}"#, .reply, "messages[0].name", "Extra inputs"),
            (#"{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "hologram"}]}]}"#, .reply,
             "messages[0].content[0].type", "'hologram' is not a block"),
        ]
        for (body, purpose, field, words) in cases {
            do {
                _ = try read(body, for: purpose)
                Issue.record("accepted: \(body)")
            } catch let error as RequestFieldError {
                #expect(error.field == field && error.message.contains(words), "\(body): \(error.field): \(error.message)")
            }
        }
    }

    /// The stream's events in the order Anthropic's clients accept: a thinking block closed with
    /// its signature, a text block, then a block a call, the stop reason and the usage.
    @Test func aStreamOpensAndClosesEachBlockInOrder() throws {
        var stream = MessagesStream(id: "msg_1", model: "m")
        var events = stream.start()
        events += stream.add("Hmm", as: .thinking)
        events += stream.add(" ok", as: .thinking)
        events += stream.add("Hi", as: .text)
        var summary = ReplySummary(stopReason: .endOfGeneration, statistics: GenerationStatistics(), rawText: "Hi", text: "Hi", storedText: "Hi")
        summary.toolCalls = [ToolCall(id: "call_1", name: "t", arguments: #"{"x": 1}"#)]
        events += stream.finish(summary)
        let shapes = events.map { event -> String in
            guard case .object(let data) = event.data, case .object(let delta)? = data["delta"], case .string(let type)? = delta["type"] else {
                return event.name
            }
            return "\(event.name):\(type)"
        }
        #expect(shapes == ["message_start", "ping", "content_block_start", "content_block_delta:thinking_delta", "content_block_delta:thinking_delta",
                           "content_block_delta:signature_delta", "content_block_stop", "content_block_start", "content_block_delta:text_delta",
                           "content_block_stop", "content_block_start", "content_block_delta:input_json_delta", "content_block_stop",
                           "message_delta", "message_stop"], "\(shapes)")
        let indices = events.compactMap { event -> Double? in
            guard case .object(let data) = event.data, case .number(let index)? = data["index"] else { return nil }
            return index
        }
        #expect(indices == [0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
        #expect(events.first { $0.name == "message_delta" }?.data.text.contains(#""stop_reason":"tool_use""#) == true)
        let whole = MessagesReply.message(id: "msg_1", model: "m", summary: summary).text
        #expect(whole.contains(#"{"type":"tool_use","id":"call_1","name":"t","input":{"x":1}}"#), "\(whole)")
    }

    /// A client's body folds system messages into `system` and results into the next user
    /// message; its reader takes a call's input in pieces, and an error event as the server's.
    @Test func theClientsBodyAndReader() throws {
        var parameters = GenerationParameters()
        parameters.stop = ["END"]
        let call = ToolCall(id: "a", name: "t", arguments: #"{"x":1}"#)
        let body = try MessagesClient.body(model: "m", messages: [ChatMessage(.system, "S"), ChatMessage(.user, "Q"),
                                                                  ChatMessage(.assistant, "", toolCalls: [call]),
                                                                  ChatMessage(.tool, "R", toolCallID: "a"), ChatMessage(.user, "More")],
                                           parameters: parameters).text
        #expect(body.contains(#""system":"S""#) && body.contains(#""stop_sequences":["END"]"#), "\(body)")
        #expect(body.contains(#"{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"t","input":{"x":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"R"},{"type":"text","text":"More"}]}"#),
                "\(body)")
        parameters.format = .json
        #expect(throws: RequestFieldError.self) { try MessagesClient.body(model: "m", messages: [], parameters: parameters) }
        var reader = MessagesEventReader()
        func read(_ data: String) throws -> [StreamedPiece] { try reader.read(ServerSentEvent(name: "x", data: data)) }
        #expect(try read(#"{"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "a", "name": "t", "input": {}}}"#)
                    == [.toolCall(WireToolCallDelta(index: 0, id: "a", type: "function", function: .init(name: "t", arguments: "")))])
        #expect(try read(#"{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"x\""}}"#)
                    == [.toolCall(WireToolCallDelta(index: 0, function: .init(arguments: #"{"x""#)))])
        #expect(try read(#"{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hm"}}"#) == [.reasoning("Hm")])
        #expect(try read(#"{"type": "message_stop"}"#) == [.finished])
        #expect(throws: StreamedError.server("Overloaded")) {
            try read(#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#)
        }
    }
}
