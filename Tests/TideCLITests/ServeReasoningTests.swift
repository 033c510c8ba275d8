import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// A thinking model's reasoning through `tide serve`, as the official `openai` client reads it:
    /// `reasoning_content` beside `content`, whole and streamed (Qwen 3's fixture model, its reply
    /// written token by token by a plugin).
    @Suite struct ServeReasoningTests {
        static let client = """
            import json, sys, openai
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            ask = [{"role": "user", "content": "Capital of France?"}]
            whole = client.chat.completions.create(model="m", temperature=0, max_tokens=40, messages=ask)
            reasoning, content = [], []
            for chunk in client.chat.completions.create(model="m", temperature=0, max_tokens=40, messages=ask, stream=True):
                for choice in chunk.choices:
                    if getattr(choice.delta, "reasoning_content", None): reasoning.append(choice.delta.reasoning_content)
                    if choice.delta.content: content.append(choice.delta.content)
            message = whole.choices[0].message
            print(json.dumps({"reasoning": getattr(message, "reasoning_content", None), "content": message.content,
                "streamed_reasoning": "".join(reasoning), "streamed_content": "".join(content),
                "finish": whole.choices[0].finish_reason}))
            """

        @Test func reasoningComesAsReasoningContent() async throws {
            let family = try #require(ModelFamily.all.first { $0.name == "qwen-3" })
            try family.checkInstalled()
            let plugins = try ScratchPlugins.folder(["think-then": ScratchPlugins.thinkThen])
            let plugin = plugins.appendingPathComponent("think-then.lua").path
                + " think='Let me see.' answer='Paris.' stop='<|im_end|>'"
            let server = try await TideServer(["--model", family.path, "--plugin", plugin])
            let result = try #require(try server.python(Self.client) as? [String: String])
            #expect(result["reasoning"] == "Let me see." && result["content"] == "Paris.", "\(result)")
            #expect(result["streamed_reasoning"] == "Let me see." && result["streamed_content"] == "Paris.", "\(result)")
            #expect(result["finish"] == "stop")
        }
    }
}
