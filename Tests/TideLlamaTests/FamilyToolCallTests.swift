import Testing
import TideCore
import TideFormat
@testable import TideLlama
import TideTestSupport

/// Each family's tool format on its fixture model: the tools offered in its prompt, a call the
/// grammar makes whatever the random weights prefer, read back, run, and its result given to the
/// model as the family gives it.
@Suite struct FamilyToolCallTests {
    /// A thermometer whose only argument is one of two words, so a call is short on any weights.
    final class Thermometer: ChatHook, ToolProvider, Sendable {
        let name = "thermometer"
        let points: Set<HookPoint> = []
        var tools: [ToolDefinition] {
            [ToolDefinition(name: "thermometer", description: "The temperature outside.", parameters: """
                {"type": "object", "properties": {"unit": {"enum": ["celsius", "kelvin"]}}, "required": ["unit"], "additionalProperties": false}
                """)]
        }
        func runTool(_ call: ToolCall) throws -> String { "21" }
    }

    /// The format each family gets, and how its prompt holds the offer and the result.
    static let formats: [String: (reader: String, offer: String, result: String)] = [
        "smollm2-135m-instruct": ("HermesToolCalls", "<tools>\n{\"type\": \"function\"", "<|im_start|>user\n<tool_response>\n21\n</tool_response><|im_end|>"),
        "phi-3.5": ("HermesToolCalls", "<tools>\n{\"type\": \"function\"", "<|user|>\n<tool_response>\n21\n</tool_response><|end|>"),
        "phi-4-mini": ("Phi4MiniToolCalls", "<|tool|>[{\"name\": \"thermometer\"", "<|tool|>21<|end|>"),
        "llama-3.2": ("LlamaToolCalls", "Environment: ipython\nCutting Knowledge Date", "<|start_header_id|>ipython<|end_header_id|>\n\n\"21\"<|eot_id|>"),
        "qwen-2.5": ("HermesToolCalls", "<tools>\n{\"type\": \"function\"", "<|im_start|>user\n<tool_response>\n21\n</tool_response><|im_end|>"),
        "qwen-3": ("HermesToolCalls", "<tools>\n{\"type\": \"function\"", "<|im_start|>user\n<tool_response>\n21\n</tool_response><|im_end|>"),
        "deepseek-r1-qwen": ("HermesToolCalls", "You are terse.\n\n# Tools", "<｜User｜><tool_response>\n21\n</tool_response>"),
        "gemma-3": ("HermesToolCalls", "<start_of_turn>user\nYou are terse.\n\n# Tools", "<start_of_turn>user\n<tool_response>\n21\n</tool_response><end_of_turn>"),
    ]

    @Test(arguments: ModelFamily.all)
    func theFamilysFormatCallsRunsAndAnswers(family: ModelFamily) async throws {
        try family.checkInstalled()
        let format = try #require(Self.formats[family.name])
        let model = try LlamaModel.load(path: family.path, contextSize: 1024)
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
        let reader = try #require(backend.toolCallReader)
        #expect("\(type(of: reader))" == format.reader, "\(family)")
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 48
        parameters.toolChoice = .named("thermometer")
        parameters.maxToolRounds = 1
        let session = ChatSession(backend: backend, systemPrompt: "You are terse.", parameters: parameters, hooks: [Thermometer()])
        let reply = try await session.reply(to: "How warm is it?").collect()
        let call = try #require(reply.toolCalls.first, "\(family): \(reply.text) \(reply.summary?.toolCallProblem ?? "")")
        #expect(call.name == "thermometer" && ["{\"unit\":\"celsius\"}", "{\"unit\":\"kelvin\"}"].contains(call.arguments), "\(family): \(call)")
        #expect(reply.toolResults.map(\.content) == ["21"], "\(family)")
        // The call as written is never shown (the answer after it is the random weights' own words,
        // which may spell a marker on another machine, so the call itself is what is looked for).
        #expect(!reply.text.contains(reader.written([call])), "\(family): the call is never shown: \(reply.text)")
        // The next round's prompt: the offer and the result, as the family's template writes them.
        let offered = try model.renderPrompt(reader.prompt(session.history, offering: Thermometer().tools), template: .model)
        #expect(offered.contains(format.offer), "\(family): \(offered)")
        #expect(offered.contains(reader.written([call])), "\(family): \(offered)")
        #expect(offered.contains(format.result), "\(family): \(offered)")
    }
}
