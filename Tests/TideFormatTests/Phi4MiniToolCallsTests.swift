import Testing
import TideCore
import TideFormat

/// Phi-4-mini's tool calls, `functools[…]`: read as JSON, so brackets and commas inside their
/// strings are the strings'.
@Suite("Phi-4-mini tool calls") struct Phi4MiniToolCallsTests {
    let reader = Phi4MiniToolCalls()
    let echo = ToolDefinition(name: "echo", description: "Says it back.",
                              parameters: #"{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}"#)

    @Test func callsWhoseStringsHoldBracketsAreReadWhole() throws {
        let text = #"functools[{"name": "echo", "arguments": {"text": "], {\"a\": 1}, ["}}, {"name": "echo", "arguments": {"text": ","}}]"#
        #expect(try GrammarRecognizer.accepts(Grammar(gbnf: reader.callGrammar(for: [echo], choice: .required, parallel: true)), text))
        let calls = try reader.calls(in: text)
        #expect(calls.map(\.arguments) == [#"{"text":"], {\"a\": 1}, ["}"#, #"{"text":","}"#])
        #expect(calls.map(\.id) == ["call_1", "call_2"])
    }

    @Test(arguments: [
        (#"functools[{"name": "echo", "arguments": {"text": "]"}"#, "the tool calls have no closing ]"),
        (#"functools[{"name": "echo"} {"name": "echo"}]"#, "the tool calls have no closing ]"),
        ("functools[]", "no tool call follows functools["),
    ])
    func unreadableCallsSayWhy(text: String, message: String) {
        do {
            _ = try reader.calls(in: text)
            Issue.record("\(text) was read")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }
}
