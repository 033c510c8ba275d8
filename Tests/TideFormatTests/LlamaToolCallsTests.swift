import Testing
import TideCore
import TideFormat

/// Llama 3's tool format (its prompt is held to Llama 3.2's own template in `ToolFormatTemplateTests`).
@Suite("Llama tool calls") struct LlamaToolCallsTests {
    let reader = LlamaToolCalls()

    /// A call is the reply's JSON with `parameters`; written back as the model wrote it, or, for a
    /// call written otherwise (a script's `arguments`, a client's data), in Llama's own form.
    @Test func callsAreReadAndWrittenInLlamasForm() throws {
        let written = #"{"name": "add", "parameters": {"a": 2,"b": 3}}"#
        let calls = try reader.calls(in: written)
        #expect(calls == [ToolCall(id: "call_1", name: "add", arguments: #"{"a":2,"b":3}"#, written: written)])
        #expect(reader.written(calls) == written)
        let scripted = try ToolCall(json: #"{"name": "add", "arguments": {"a": 2}}"#, id: "c")
        #expect(scripted.arguments == #"{"a":2}"#)
        #expect(reader.written([scripted]) == #"{"name": "add", "parameters": {"a": 2}}"#)
        #expect(HermesToolCalls().written([try ToolCall(json: written, id: "c")])
            == "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}\n</tool_call>")
        #expect(throws: ToolFailure.self) { try reader.calls(in: #"{"name": "add", "parameters": [1]}"#) }
        #expect(throws: ToolFailure.self) { try reader.calls(in: #"{"tool": "add"}"#) }
    }

    /// Results are `tool` messages the template gives the `ipython` role, their text as JSON.
    @Test func resultsAreJSONForTheIpythonRole() {
        let prompt = reader.prompt([ChatMessage(.user, "Hi"), ChatMessage(.tool, "say \"hi\"", toolCallID: "c")], offering: [])
        #expect(prompt == [ChatMessage(.user, "Hi"), ChatMessage(.tool, #""say \"hi\"""#, toolCallID: "c")])
        #expect(reader.toolRole == "ipython" && HermesToolCalls().toolRole == "tool")
    }
}
