import Foundation
import Testing
import TideCore
import TideFormat
import TideLlama
import TideTestSupport

extension RealModelTests {
    /// Tools offered to the real model: its calls follow the tool's schema whatever words it
    /// prefers, run, and come back as results it reads.
    @Suite struct ToolCallingTests {
        /// A tip calculator, with a schema that leaves the model little room.
        final class Tipper: ChatHook, ToolProvider, Sendable {
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
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048, machine: .underTest), template: .named("llama3"))
            #expect(backend.toolCallReader is LlamaToolCalls)
            let session = tipping(on: backend)
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

        /// A session on `backend` whose greedy reply must call the tipper's tool, once.
        func tipping(on backend: LlamaBackend) -> ChatSession {
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = 96
            parameters.toolChoice = .named("tip")
            parameters.maxToolRounds = 1
            return ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters, hooks: [Tipper()])
        }

        /// A tool format named for a backend (a preset's, `--tool-format`) replaces the one its
        /// template tells, in the prompt, the calls' grammar and their reading alike, alone or on a
        /// sequence of a batch.
        @Test func aNamedToolFormatReplacesTheTemplatesOwn() async throws {
            let inferred = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            #expect(inferred.toolCallFormat == .hermes && inferred.toolCallReader is HermesToolCalls)
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 1, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            #expect(try engine.makeBackend(toolFormat: .phi4Mini).toolCallFormat == .phi4Mini)
            engine.shutdown()
            // The model's own ChatML template, with Llama 3's format named.
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048, machine: .underTest), toolFormat: .llama3)
            #expect(backend.toolCallFormat == .llama3 && backend.toolCallReader is LlamaToolCalls)
            let session = tipping(on: backend)
            let reply = try await session.reply(to: "What is a 15% tip on 80 dollars?").collect()
            // Llama 3's grammar holds the reply to its JSON with `parameters` (Hermes's would open
            // `<tool_call>` and say `arguments`), whatever words and spacing the model picks.
            let written = reply.toolCalls.first?.written ?? reply.text
            #expect(written.hasPrefix("{") && written.contains(#""parameters""#) && !written.contains("<tool_call>"), "\(written)")
            let offered = try TestModel.shared.renderPrompt(backend.toolCallReader!.prompt(session.history, offering: Tipper().tools),
                                                            template: .model, toolFormat: .llama3)
            #expect(offered.contains("Environment: ipython"), "\(offered)")
            let result = [ChatMessage(.user, "Tip?"), ChatMessage(.tool, "12")]
            #expect(try TestModel.shared.renderPrompt(result, template: .model, toolFormat: .llama3).contains("<|im_start|>ipython\n"))
            #expect(try TestModel.shared.renderPrompt(result, template: .model).contains("<|im_start|>tool\n"))
        }
    }
}
