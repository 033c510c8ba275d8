import CLlama
import Foundation
import Testing
import TideCore
@testable import TideLlama
import TideModels
import TideTestSupport

/// Each family's prompts, as Tide writes them from the model file's own template, against that
/// template rendered by Jinja as the model's authors intend: byte for byte, but for the BOS token,
/// which llama.cpp's tokenizer adds to Tide's prompt.
@Suite struct FamilyTemplateTests {
    static let conversations: [(name: String, messages: [ChatMessage])] = [
        ("a system prompt and several turns", [ChatMessage(.system, "You are terse."), ChatMessage(.user, "Hi"),
                                               ChatMessage(.assistant, "Hello."), ChatMessage(.user, "What is 2 + 2?")]),
        ("no system prompt", [ChatMessage(.user, "Hi")]),
        ("an empty system prompt", [ChatMessage(.system, ""), ChatMessage(.user, "Hi")]),
        ("spaces and line breaks", [ChatMessage(.system, " Be brief.\n"), ChatMessage(.user, "  Two\nlines\n\n"),
                                    ChatMessage(.assistant, " Yes. "), ChatMessage(.user, "¿Qué? 東京")]),
        ("a long one", [ChatMessage(.system, "You count.")] + (1...12).flatMap { turn in
            [ChatMessage(.user, "Say \(turn)."), ChatMessage(.assistant, "\(turn), as asked: " + String(repeating: "x", count: turn * 7))]
        } + [ChatMessage(.user, "And now?")]),
    ]

    static func json(_ messages: [ChatMessage]) throws -> String {
        let objects = messages.map { ["role": $0.role.rawValue, "content": $0.content] }
        return String(decoding: try JSONSerialization.data(withJSONObject: objects), as: UTF8.self)
    }

    @Test(arguments: ModelFamily.all)
    func promptsAreTheFamilysTemplate(family: ModelFamily) throws {
        try family.checkInstalled()
        let model = try LlamaModel.load(path: family.path, contextSize: 512)
        #expect(model.family != nil, "Tide writes \(family)'s prompts itself")
        try Self.expectTemplatePrompts(of: model, with: .model, "\(family)")
    }

    /// The registry's Phi models are rendered with the template they name: their files' own, as
    /// the fixtures of their families carry it.
    @Test(arguments: [("phi-3.5-mini-instruct", "phi-3.5"), ("phi-4-mini-instruct", "phi-4-mini")])
    func theRegistrysPhiModelsUseTheirFamilysTemplate(entry: String, fixture: String) throws {
        let family = try ModelFamily.named(fixture)
        let model = try LlamaModel.load(path: family.path, contextSize: 512)
        let template = try ChatTemplate(parsing: try #require(ModelRegistry.entry(named: entry)).template)
        try Self.expectTemplatePrompts(of: model, with: template, entry)
    }

    /// Qwen 3's template writes back the reasoning of the answers after the last question (a tool
    /// round's, given as `reasoning_content`) and drops an answered turn's: so does Tide.
    @Test func qwenThreeKeepsTheReasoningOfTheTurnBeingAnswered() throws {
        let family = try ModelFamily.named("qwen-3")
        let model = try LlamaModel.load(path: family.path, contextSize: 512)
        let call = ToolCall(id: "call_1", name: "calculate", arguments: #"{"expression":"2 + 2"}"#)
        let conversation = [ChatMessage(.system, "Be brief."), ChatMessage(.user, "Hi"), ChatMessage(.assistant, "Hello.", reasoning: "A greeting."),
                            ChatMessage(.user, "What is 2 + 2?"), ChatMessage(.assistant, "", toolCalls: [call], reasoning: "\nI should add.\n"),
                            ChatMessage(.tool, "4", toolCallID: "call_1")]
        let messages = """
            [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
             {"role": "assistant", "content": "Hello.", "reasoning_content": "A greeting."},
             {"role": "user", "content": "What is 2 + 2?"},
             {"role": "assistant", "content": "", "reasoning_content": "\\nI should add.\\n", "tool_calls": [{"id": "call_1", "type": "function",
               "function": {"name": "calculate", "arguments": {"expression": "2 + 2"}}}]},
             {"role": "tool", "tool_call_id": "call_1", "content": "4"}]
            """
        let expected = try ReferenceFiles.render(template: try #require(model.facts.chatTemplate), messages: messages, tools: nil)
        let reader = try #require(LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 512, machine: .underTest)).toolCallReader)
        let rendered = try model.renderPrompt(reader.prompt(conversation, offering: []), template: .model)
        #expect(rendered == expected)
        #expect(expected.contains("<think>\nI should add.\n</think>") && !expected.contains("A greeting."))
    }

    /// Every conversation, rendered by Tide with `chosen`, is the model's own template's.
    static func expectTemplatePrompts(of model: LlamaModel, with chosen: ChatTemplate, _ label: String) throws {
        let template = try #require(model.facts.chatTemplate)
        // The token texts the template is given, as transformers gives them.
        let bos = try model.tokenize("", addSpecial: true).first.map(model.tokenText) ?? ""
        let eos = model.tokenText(llama_vocab_eos(model.vocab))
        for (name, messages) in conversations {
            let expected = try ReferenceFiles.render(template: template, messages: json(messages), tools: nil,
                                                     extra: ["bos_token": bos, "eos_token": eos, "enable_thinking": true])
            let rendered = try model.renderPrompt(messages, template: chosen)
            let withBOS = bos.isEmpty || !expected.hasPrefix(bos) ? rendered : bos + rendered
            #expect(withBOS == expected, "\(label), \(name)")
        }
    }
}
