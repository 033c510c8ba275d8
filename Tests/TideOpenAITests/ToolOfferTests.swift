import Foundation
import Testing
import TideCore
import TideFormat
import TideOpenAI

/// The tools a chat-completion request offers, the fields a client sends for them, and tool
/// calls and results in messages.
struct ToolOfferTests {
    static let weather = #"{"type": "function", "function": {"name": "weather", "description": "Now.", "parameters": {"type": "object", "properties": {"unit": {"type": "string"}, "city": {"type": "string"}}, "required": ["city"]}}}"#

    func offer(_ fields: String) throws -> ToolOffer? {
        try ToolOffer.requested(in: try JSONValue(parsing: #"{"model": "m", "messages": [], "# + fields + "}"))
    }

    @Test func toolsAreReadInTheirOwnKeyOrderWithTheirChoice() throws {
        #expect(try offer(#""temperature": 0"#) == nil)
        let auto = try #require(try offer(#""tools": [\#(Self.weather)]"#))
        #expect(auto.tools == [ToolDefinition(name: "weather", description: "Now.",
                                              parameters: #"{"type":"object","properties":{"unit":{"type":"string"},"city":{"type":"string"}},"required":["city"]}"#)])
        #expect(auto.choice == .auto && auto.parallel)
        #expect(try offer(#""tools": [\#(Self.weather)], "tool_choice": "required", "parallel_tool_calls": false"#)
            == ToolOffer(tools: auto.tools, choice: .required, parallel: false))
        #expect(try offer(#""tools": [\#(Self.weather)], "tool_choice": {"type": "function", "function": {"name": "weather"}}"#)?.choice
            == .named("weather"))
        #expect(try offer(#""tool_choice": "none""#) == ToolOffer(tools: [], choice: .none))
        // A tool without parameters takes an empty object.
        #expect(try offer(#""tools": [{"type": "function", "function": {"name": "now"}}]"#)?.tools.first?.parameters
            == #"{"type":"object","properties":{}}"#)
    }

    @Test(arguments: [
        (#""tools": {}"#, "tools"),
        (#""tools": [{"type": "retrieval"}]"#, "tools[0]"),
        (#""tools": [{"type": "function", "function": {}}]"#, "tools[0].function.name"),
        (#""tools": [{"type": "function", "function": {"name": "f", "description": 3}}]"#, "tools[0].function.description"),
        (#""tools": [{"type": "function", "function": {"name": "f", "parameters": []}}]"#, "tools[0].function.parameters"),
        (#""tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}]"#, "tools[0].function.parameters"),
        (#""tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]"#, "tools[0].function.parameters"),
        (#""tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": {"type": "function"}"#, "tool_choice"),
        (#""tools": [{"type": "function", "function": {"name": "f"}}], "parallel_tool_calls": "yes""#, "parallel_tool_calls"),
    ])
    func malformedOffersNameTheirField(fields: String, field: String) throws {
        let error = #expect(throws: RequestFieldError.self) { _ = try offer(fields) }
        #expect(error?.field == field, "\(String(describing: error))")
    }

    /// Found by the audit after fuzzing: each tool was checked against every earlier one for its
    /// name. Names are found in a set now, and a request offers at most 128 tools, as OpenAI's do.
    @Test func aRequestOffersAtMostOneHundredTwentyEightTools() throws {
        let tools = { (count: Int) in (0..<count).map { #"{"type": "function", "function": {"name": "t\#($0)"}}"# }.joined(separator: ", ") }
        #expect(try offer(#""tools": [\#(tools(128))]"#)?.tools.count == 128)
        #expect {
            try offer(#""tools": [\#(tools(129))]"#)
        } throws: { error in
            (error as? RequestFieldError)?.field == "tools"
                && (error as? RequestFieldError)?.message.contains("more than the 128 a request may offer") == true
        }
    }

    @Test func requestFieldsReadBack() throws {
        let tools = try #require(try offer(#""tools": [\#(Self.weather)]"#)).tools
        for offered in [ToolOffer(tools: tools), ToolOffer(tools: tools, choice: .named("weather"), parallel: false),
                        ToolOffer(tools: tools, choice: .required)] {
            let body = JSONValue.object(JSONObject(offered.requestFields))
            #expect(try ToolOffer.requested(in: body) == offered)
        }
    }

    /// Calls and results in messages, as clients send them (content null or absent beside calls).
    @Test func messagesCarryCallsAndResults() throws {
        let body = #"""
            {"model": "m", "messages": [{"role": "user", "content": "Hi"},
              {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
              {"role": "assistant", "tool_calls": []},
              {"role": "tool", "tool_call_id": "c1", "content": "cold"}]}
            """#
        let request = try JSONDecoder().decode(ChatCompletionRequest.self, from: Data(body.utf8))
        #expect(request.messages[1].content == "" && request.messages[2].content == "")
        #expect(request.messages[1].toolCalls?.map(\.call) == [ToolCall(id: "c1", name: "weather", arguments: #"{"city": "Oslo"}"#)])
        #expect(request.messages[3].toolCallID == "c1")
        let message = ChatCompletionRequest.Message(ChatMessage(.assistant, "", toolCalls: [ToolCall(id: "c1", name: "f", arguments: "{}")]))
        let written = String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
        #expect(written.contains(#""content":"""#) && written.contains(#""tool_calls":[{"#))
        #expect(try JSONDecoder().decode(ChatCompletionRequest.Message.self, from: Data(written.utf8)) == message)
    }

    /// A streamed call comes in pieces: its id and name, then its arguments.
    @Test func aCallStreamsAsOpenAIStreamsIt() throws {
        let pieces = WireToolCallDelta.pieces(of: ToolCall(id: "c1", name: "f", arguments: #"{"a":1}"#), index: 2)
        #expect(pieces == [WireToolCallDelta(index: 2, id: "c1", type: "function", function: .init(name: "f", arguments: "")),
                           WireToolCallDelta(index: 2, function: .init(arguments: #"{"a":1}"#))])
    }
}
