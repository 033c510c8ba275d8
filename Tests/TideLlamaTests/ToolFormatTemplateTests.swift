import Foundation
import Testing
import TideCore
import TideFormat
@testable import TideLlama
import TideTestSupport

/// Each tool format against its family's own chat template, rendered by Jinja as the model's
/// authors intend (llama.cpp's `models/templates`): the tools offered, a call and its result, and
/// the question after it must come out as the template writes them.
@Suite struct ToolFormatTemplateTests {
    static let tools = """
        [{"type": "function", "function": {"name": "calculate", "description": "Evaluates arithmetic.",
          "parameters": {"type": "object", "properties": {"expression": {"type": "string"}, "digits": {"type": "integer"}},
          "required": ["expression"]}}}]
        """
    static let definitions = [ToolDefinition(name: "calculate", description: "Evaluates arithmetic.", parameters: """
        {"type": "object", "properties": {"expression": {"type": "string"}, "digits": {"type": "integer"}}, "required": ["expression"]}
        """)]
    /// A conversation with a call and its result, in Tide's terms and as OpenAI's JSON.
    static let call = ToolCall(id: "call_2_1", name: "calculate", arguments: #"{"expression":"2 + 2","digits":3}"#)
    static let conversation = [ChatMessage(.system, "You are a helpful assistant."), ChatMessage(.user, "What is 2 + 2?"),
                               ChatMessage(.assistant, "", toolCalls: [call]), ChatMessage(.tool, "4", toolCallID: "call_2_1"),
                               ChatMessage(.assistant, "It is 4."), ChatMessage(.user, "And 3 + 3?")]
    static let messages = """
        [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "What is 2 + 2?"},
         {"role": "assistant", "content": "", "tool_calls": [{"id": "call_2_1", "type": "function",
           "function": {"name": "calculate", "arguments": {"expression": "2 + 2", "digits": 3}}}]},
         {"role": "tool", "tool_call_id": "call_2_1", "content": "4"},
         {"role": "assistant", "content": "It is 4."}, {"role": "user", "content": "And 3 + 3?"}]
        """

    /// Qwen 2.5's template, which the ChatML family's format follows, renders with llama.cpp's
    /// ChatML template exactly as Tide writes it.
    @Test func theChatMLFormatIsQwenTwoPointFivesTemplate() throws {
        let expected = try ReferenceFiles.render(template: ReferenceFiles.template("Qwen-Qwen2.5-7B-Instruct"),
                                                 messages: Self.messages, tools: Self.tools)
        let reader = ToolCallFormat.inferred(fromTemplate: "chatml").reader
        #expect(reader is HermesToolCalls)
        let rendered = try ChatTemplate.render(reader.prompt(Self.conversation, offering: Self.definitions), with: "chatml",
                                               toolRole: reader.toolRole)
        #expect(rendered == expected)
    }

    /// Llama 3.2's template renders what Tide writes for the Llama 3 family (dated system prompt
    /// included) but for the BOS token, which the tokenizer adds: the tools, the call and the
    /// `ipython` result are the same bytes.
    @Test func theLlamaFormatIsLlamaThreePointTwosTemplate() throws {
        let template = try ReferenceFiles.template("meta-llama-Llama-3.2-3B-Instruct")
        let expected = try ReferenceFiles.render(template: template, messages: Self.messages, tools: Self.tools)
        let reader = ToolCallFormat.inferred(fromTemplate: template).reader
        #expect(reader is LlamaToolCalls)
        let family = try #require(TemplateFamily(recognizing: template))
        let rendered = family.render(reader.prompt(Self.conversation, offering: Self.definitions), toolRole: reader.toolRole)
        #expect("<|begin_of_text|>" + rendered == expected)
        // The reply's call, read back, and its grammar's start.
        #expect(try reader.calls(in: #"{"name": "calculate", "parameters": {"expression": "7 * 6"}}"#).map(\.arguments)
            == [#"{"expression":"7 * 6"}"#])
        let grammar = try reader.callGrammar(for: Self.definitions, choice: .required, parallel: true)
        #expect(try Grammar(gbnf: grammar).text.contains("calculate"))
    }

    /// Phi-4-mini's template, given the tools as its authors' examples give them (a JSON list in the
    /// system message's `tools`) and the call as the model writes it (`functools[…]`), renders what
    /// Tide writes.
    @Test func thePhiFourMiniFormatIsItsTemplate() throws {
        let template = try ReferenceFiles.ownTemplate("microsoft-Phi-4-mini-instruct")
        let reader = ToolCallFormat.inferred(fromTemplate: template).reader
        #expect(reader is Phi4MiniToolCalls)
        let call = #"functools[{"name": "calculate", "arguments": {"expression": "2 + 2", "digits": 3}}]"#
        let listed = #"[{"name": "calculate", "description": "Evaluates arithmetic.", "parameters": {"type": "object", "#
            + #""properties": {"expression": {"type": "string"}, "digits": {"type": "integer"}}, "required": ["expression"]}}]"#
        let messages = try String(decoding: JSONSerialization.data(withJSONObject: [
            ["role": "system", "content": "You are a helpful assistant.", "tools": listed], ["role": "user", "content": "What is 2 + 2?"],
            ["role": "assistant", "content": call], ["role": "tool", "content": "4"],
            ["role": "assistant", "content": "It is 4."], ["role": "user", "content": "And 3 + 3?"],
        ]), as: UTF8.self)
        let expected = try ReferenceFiles.render(template: template, messages: messages, tools: nil)
        let family = try #require(TemplateFamily(recognizing: template))
        #expect(family.render(reader.prompt(Self.conversation, offering: Self.definitions), toolRole: reader.toolRole) == expected)
        // The reply's calls, read back as written, and written again the same.
        let reply = #"functools[{"name": "calculate", "arguments": {"expression": "7 * 6"}}, {"name":"calculate","arguments":{"expression":"1"}}]"#
        let calls = try reader.calls(in: reply)
        #expect(calls.map(\.arguments) == [#"{"expression":"7 * 6"}"#, #"{"expression":"1"}"#])
        #expect(calls.map(\.name) == ["calculate", "calculate"])
        #expect(reader.written(calls) == reply)
        #expect(throws: ToolFailure.self) { try reader.calls(in: #"functools[{"name": "calculate""#) }
        let grammar = try reader.callGrammar(for: Self.definitions, choice: .required, parallel: false)
        #expect(try Grammar(gbnf: grammar).text.contains("functools["))
    }

    /// Templates speaking Hermes's `<tool_call>` on Llama 3 headers (Hermes 3) keep the ChatML
    /// family's format; other families get it too.
    @Test func eachTemplateGetsItsFamilysFormat() throws {
        #expect(ToolCallFormat.inferred(fromTemplate: try ReferenceFiles.template("NousResearch-Hermes-3-Llama-3.1-8B-tool_use")) == .hermes)
        #expect(ToolCallFormat.inferred(fromTemplate: try ReferenceFiles.template("meta-llama-Llama-3.1-8B-Instruct")) == .llama3)
        #expect(ToolCallFormat.inferred(fromTemplate: "llama3") == .llama3)
        #expect(ToolCallFormat.inferred(fromTemplate: "phi3") == .hermes)
        #expect(ToolCallFormat.inferred(fromTemplate: try ReferenceFiles.template("microsoft-Phi-3.5-mini-instruct")) == .hermes)
    }
}
