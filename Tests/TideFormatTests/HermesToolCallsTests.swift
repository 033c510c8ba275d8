import Testing
import TideCore
@testable import TideFormat

@Suite("Hermes tool calls")
struct HermesToolCallsTests {
    let reader = HermesToolCalls()
    let add = ToolDefinition(name: "add", description: "Add two numbers.",
                             parameters: #"{"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}"#)

    /// The messages a ChatML template renders as Qwen 2.5's template does (`ToolFormatTemplateTests`
    /// holds the whole prompt to the template itself): the tools in the system prompt, the calls
    /// in the assistant's turn, consecutive results in one user turn.
    @Test func messagesAreWrittenAsTheFamilysTemplateWritesThem() {
        let messages = [
            ChatMessage(.system, "You are a helpful assistant."),
            ChatMessage(.user, "What is 2 + 3, and 4 + 5?"),
            ChatMessage(.assistant, "", toolCalls: [ToolCall(id: "call_1", name: "add", arguments: #"{"a":2,"b":3}"#),
                                                    ToolCall(id: "call_2", name: "add", arguments: #"{"a":4,"b":5}"#)]),
            ChatMessage(.tool, "5", toolCallID: "call_1"),
            ChatMessage(.tool, "9", toolCallID: "call_2"),
        ]
        let prompt = reader.prompt(messages, offering: [add])
        #expect(prompt.map(\.role) == [.system, .user, .assistant, .user])
        #expect(prompt[0].content == """
            You are a helpful assistant.

            # Tools

            You may call one or more functions to assist with the user query.

            You are provided with function signatures within <tools></tools> XML tags:
            <tools>
            {"type": "function", "function": {"name": "add", "description": "Add two numbers.", "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}}
            </tools>

            For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
            <tool_call>
            {"name": <function-name>, "arguments": <args-json-object>}
            </tool_call>
            """)
        #expect(prompt[2].content == "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}\n</tool_call>\n"
            + "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 4, \"b\": 5}}\n</tool_call>")
        #expect(prompt[3].content == "<tool_response>\n5\n</tool_response>\n<tool_response>\n9\n</tool_response>")
        // Without tools offered, only the calls and results are rewritten; messages without them pass.
        #expect(reader.prompt(Array(messages.prefix(2)), offering: []) == Array(messages.prefix(2)))
    }

    @Test func callsAreReadFromTheText() throws {
        let calls = try reader.calls(in: "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}}\n</tool_call>\n"
            + "<tool_call>{\"name\": \"add\", \"arguments\": \"{\\\"a\\\": 3, \\\"b\\\": 4}\"}</tool_call>")
        #expect(calls.map(\.name) == ["add", "add"])
        #expect(calls.map(\.arguments) == [#"{"a":1,"b":2}"#, #"{"a":3,"b":4}"#])
    }

    @Test(arguments: [
        ("<tool_call>\n{\"name\": \"add\"", "the tool call ends inside its JSON"),
        ("<tool_call>\n{\"name\": \"add\"}\n", "the tool call has no </tool_call>"),
        ("<tool_call>\nadd(1, 2)\n</tool_call>", "the tool call is not a JSON object"),
        ("<tool_call>{\"arguments\": {}}</tool_call>", "the tool call names no tool"),
        ("<tool_call>{\"name\": \"add\", \"arguments\": [1]}</tool_call>", "the arguments of the call of add are not a JSON object"),
    ])
    func unreadableCallsSayWhy(text: String, message: String) {
        #expect(throws: ToolFailure.self) { try reader.calls(in: text) }
        do { _ = try reader.calls(in: text) } catch { #expect(error.description.hasPrefix(message), "\(error)") }
    }

    /// A call the grammar lets the model write is read whole, whatever its strings hold: a model
    /// that wrote `</tool_call>` and `}}` inside an argument (SmolLM2 did, 1 reply in 160 under
    /// `tool_choice: required`) made a call that was read as no call.
    @Test func callsWhoseStringsHoldTheClosingTagAreReadWhole() throws {
        let echo = ToolDefinition(name: "echo", description: "Says it back.",
                                  parameters: #"{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}"#)
        let text = "<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"}}</tool_call>Then {\\\"x\\\": [1]} <tool_call>\"}}\n</tool_call>"
            + "\n<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"]\"}}\n</tool_call>"
        #expect(try GrammarRecognizer.accepts(Grammar(gbnf: reader.callGrammar(for: [echo], choice: .required, parallel: true)), text))
        let calls = try reader.calls(in: text)
        #expect(calls.map(\.name) == ["echo", "echo"])
        #expect(calls.map(\.arguments) == [#"{"text":"}}</tool_call>Then {\"x\": [1]} <tool_call>"}"#, #"{"text":"]"}"#])
    }

    /// The calls' grammar takes a call of a declared tool with valid arguments, and nothing else.
    @Test func theGrammarTakesOnlyValidCalls() throws {
        let other = ToolDefinition(name: "now", description: "The time.", parameters: #"{"type": "object"}"#)
        let grammar = try Grammar(gbnf: reader.callGrammar(for: [add, other], choice: .auto, parallel: true))
        let good = "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2.5}}\n</tool_call>"
        #expect(try GrammarRecognizer.accepts(grammar, good))
        #expect(try GrammarRecognizer.accepts(grammar, good + "\n<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"))
        #expect(try !GrammarRecognizer.accepts(grammar, "<tool_call>\n{\"name\": \"sub\", \"arguments\": {\"a\": 1, \"b\": 2}}\n</tool_call>"))
        #expect(try !GrammarRecognizer.accepts(grammar, "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": \"one\", \"b\": 2}}\n</tool_call>"))
        let single = try Grammar(gbnf: reader.callGrammar(for: [add, other], choice: .named("now"), parallel: false))
        #expect(try !GrammarRecognizer.accepts(single, good))
        #expect(try GrammarRecognizer.accepts(single, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"))
    }

    @Test func aSchemaThatCannotBeEnforcedIsRefusedWithTheReason() {
        let odd = ToolDefinition(name: "odd", description: "", parameters: #"{"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 2}}}"#)
        do {
            _ = try reader.callGrammar(for: [odd], choice: .auto, parallel: false)
            Issue.record("a multipleOf schema was taken")
        } catch {
            #expect(error.description.contains("multipleOf"), "\(error)")
        }
    }
}
