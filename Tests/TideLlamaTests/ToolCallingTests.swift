import Foundation
import Testing
import TideCore
import TideFormat
import TideLlama

extension RealModelTests {
    /// Tools offered to the real model: its calls follow the tool's schema whatever words it
    /// prefers, run, and come back as results it reads.
    @Suite struct ToolCallingTests {
        /// A tip calculator, with a schema that leaves the model little room.
        final class Tipper: ChatHook, Sendable {
            let name = "tipper"
            let points: Set<HookPoint> = []
            static let schema = #"{"type": "object", "properties": {"bill": {"type": "number"}, "percent": {"type": "integer", "minimum": 0, "maximum": 100}}, "required": ["bill", "percent"], "additionalProperties": false}"#
            var tools: [ToolDefinition] {
                [ToolDefinition(name: "tip", description: "The tip for a bill, given the bill and the tip in percent.", parameters: Self.schema),
                 ToolDefinition(name: "weather", description: "The weather in a city.",
                                parameters: #"{"type": "object", "properties": {"city": {"type": "string", "maxLength": 30}}, "required": ["city"]}"#)]
            }
            func runTool(_ call: ToolCall) throws -> String { call.name == "tip" ? "12" : "sunny" }
        }

        @Test(arguments: [ToolChoice.required, .named("weather")])
        func aRequiredCallIsValidRunsAndIsAnswered(choice: ToolChoice) async throws {
            let (session, _) = try TestModel.session {
                $0.toolChoice = choice
                $0.maxTokens = 96
                $0.maxToolRounds = 2
            }
            session.hooks = [Tipper()]
            let reply = try await session.reply(to: "What is a 15% tip on 80 dollars?").collect()
            let first = try #require(reply.toolCalls.first, "\(reply.text) \(reply.summary?.toolCallProblem ?? "")")
            if case .named(let name) = choice { #expect(first.name == name) }
            for call in reply.toolCalls {
                let tool = try #require(Tipper().tools.first { $0.name == call.name }, "\(call)")
                let schema = try JSONSchema(JSONValue(parsing: tool.parameters))
                #expect(schema.violations(of: try JSONValue(parsing: call.arguments)).isEmpty, "\(call.arguments)")
            }
            #expect(reply.toolResults.count == reply.toolCalls.count && reply.toolResults.allSatisfy { !$0.failed })
            let statistics = try #require(reply.summary?.statistics)
            #expect((1...2).contains(statistics.toolRounds))
            // Where the last round was offered the tools, a call it began was held back, never shown.
            if statistics.toolRounds < 2 { #expect(!reply.text.contains("<tool_call>"), "\(reply.text)") }
            let roles = session.history.map(\.role)
            #expect(roles.prefix(4) == [.system, .user, .assistant, .tool] && roles.last == .assistant, "\(roles)")
        }

        /// Llama 3's format, on this model's weights rendered with llama.cpp's Llama 3 template:
        /// the call is the reply's JSON with `parameters`, read, run, and given back as an
        /// `ipython` turn the model answers.
        @Test func llamaThreesFormatCallsRunsAndAnswers() async throws {
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048), template: .named("llama3"))
            #expect(backend.toolCallReader is LlamaToolCalls)
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = 96
            parameters.toolChoice = .named("tip")
            parameters.maxToolRounds = 1
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters,
                                      hooks: [Tipper()])
            let reply = try await session.reply(to: "What is a 15% tip on 80 dollars?").collect()
            let call = try #require(reply.toolCalls.first, "\(reply.text) \(reply.summary?.toolCallProblem ?? "")")
            #expect(call.name == "tip" && reply.toolCalls.count == 1)
            #expect(call.written?.hasPrefix(#"{"name""#) == true && call.written?.contains(#""parameters""#) == true, "\(call)")
            let schema = try JSONSchema(JSONValue(parsing: Tipper.schema))
            #expect(schema.violations(of: try JSONValue(parsing: call.arguments)).isEmpty, "\(call.arguments)")
            #expect(reply.toolResults.map(\.content) == ["12"])
            #expect(!reply.text.contains(#"{"name""#), "the call is never shown: \(reply.text)")
            let prompt = try TestModel.shared.renderPrompt(backend.toolCallReader!.prompt(session.history, offering: []),
                                                           template: .named("llama3"))
            #expect(prompt.contains("<|start_header_id|>ipython<|end_header_id|>\n\n\"12\"<|eot_id|>"), "\(prompt)")
        }
    }
}
