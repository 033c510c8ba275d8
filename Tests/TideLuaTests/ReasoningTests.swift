import Foundation
import Testing
import TideCore
@testable import TideLlama
import TideTestSupport

/// Thinking models on their fixture models (Qwen 3, whose replies open `<think>`; DeepSeek R1,
/// whose prompt opens it), a plugin writing the reply token by token: the reasoning comes apart
/// from the answer, per-token hooks and stop strings see only the answer, plugins can ask for the
/// reasoning, the history keeps what the template keeps, and a budget closes the reasoning.
@Suite struct ReasoningTests {
    /// Records what per-token hooks see, and stores `reasoning|answer` as the reply.
    static let watcher = """
        -- watcher: keeps the text on_token sees; stores the reply as its reasoning, "|", its answer.
        return {
          name = "watcher",
          on_token = function(token) tide.state.seen = (tide.state.seen or "") .. token.text end,
          on_reply = function(reply) return reply.reasoning .. "|" .. reply.text .. "|" .. (tide.state.seen or "") end,
        }
        """

    struct Thinker: Sendable, CustomStringConvertible {
        let fixture: String
        let open: String
        let endOfTurn: String
        var description: String { fixture }
    }

    static let thinkers = [Thinker(fixture: "qwen-3", open: "<think>", endOfTurn: "<|im_end|>"),
                           Thinker(fixture: "deepseek-r1-qwen", open: "", endOfTurn: "<｜end▁of▁sentence｜>")]

    static func session(_ thinker: Thinker, think: String, answer: String, configure: (inout GenerationParameters) -> Void = { _ in })
        throws -> (ChatSession, LlamaModel)
    {
        let family = try ModelFamily.named(thinker.fixture)
        let model = try LlamaModel.load(path: family.path, contextSize: 1024)
        let writer = try PluginFixtures.plugin("think-then", ScratchPlugins.thinkThen,
                                               options: "think='\(think)' answer='\(answer)' open='\(thinker.open)' stop='\(thinker.endOfTurn)'")
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 40
        configure(&parameters)
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
        return (ChatSession(backend: backend, systemPrompt: "You are terse.", parameters: parameters, hooks: [writer]), model)
    }

    /// Who thinks: a model whose template speaks of the tags, or whose vocabulary has them as
    /// tokens (whatever template renders it); never a raw prompt, nor a model without them.
    @Test func whoThinks() throws {
        func model(_ name: String) throws -> LlamaModel {
            let family = try ModelFamily.named(name)
            return try LlamaModel.load(path: family.path, contextSize: 256)
        }
        let qwen = try model("qwen-3")
        #expect(qwen.reasoningMarkers(template: .model) == ReasoningMarkers())
        #expect(qwen.reasoningMarkers(template: .named("chatml")) == ReasoningMarkers())
        #expect(qwen.reasoningMarkers(template: .raw) == nil)
        #expect(try model("deepseek-r1-qwen").reasoningMarkers(template: .model) == ReasoningMarkers(openedByPrompt: true))
        for other in ["qwen-2.5", ModelFamily.all[0].name, "llama-3.2", "gemma-3"] {
            #expect(try model(other).reasoningMarkers(template: .model) == nil, "\(other)")
        }
    }

    @Test(arguments: thinkers)
    func theReasoningComesApartFromTheAnswer(thinker: Thinker) async throws {
        let (session, model) = try Self.session(thinker, think: "Let me see.", answer: "Paris.") { $0.stop = ["me", "see"] }
        session.hooks.append(try PluginFixtures.plugin("watcher", Self.watcher))
        let reply = try await session.reply(to: "Capital of France?").collect()
        let summary = try #require(reply.summary)
        #expect(summary.stopReason == .endOfGeneration, "stop strings are the answer's: \(summary.stopReason)")
        #expect(reply.reasoning.joined() == "\nLet me see.\n" && summary.reasoning == "Let me see.")
        #expect(reply.text == "Paris." && summary.rawText == "Paris.")
        #expect(summary.statistics.reasoningTokens > 0 && summary.statistics.reasoningTokens < summary.statistics.generatedTokens)
        // Plugins see the answer token by token, and can ask for the reasoning.
        #expect(summary.storedText == "Let me see.|Paris.|Paris.")
        let kept = try #require(session.history.last)
        #expect(kept.content == summary.storedText && kept.reasoning == "Let me see.")
        // The next prompt keeps what the template keeps: an answered turn's reasoning is dropped
        // (DeepSeek R1's prompt opens a block for the new reply).
        let next = try model.renderPrompt(session.history + [ChatMessage(.user, "And Spain?")], template: .model)
        #expect(next.contains("Let me see.|Paris.") && next.components(separatedBy: "<think>").count == (thinker.open.isEmpty ? 2 : 1),
                "\(next)")
    }

    @Test(arguments: thinkers)
    func aBudgetClosesTheReasoning(thinker: Thinker) async throws {
        let think = "one two three four five six seven eight nine ten"
        let (session, model) = try Self.session(thinker, think: think, answer: "Done.") { $0.reasoningBudget = 3 }
        let reply = try await session.reply(to: "Count.").collect()
        let summary = try #require(reply.summary)
        let close = try model.tokenize("\n</think>")
        // Three tokens of reasoning (the open tag among them, where the reply wrote it), then the close tag forced.
        #expect(summary.statistics.reasoningTokens == 3 + close.count, "\(summary.statistics.reasoningTokens)")
        let spent = try model.tokenize(thinker.open + "\n" + think).prefix(3)
        #expect(summary.reasoning == model.detokenize(Array(spent)).replacingOccurrences(of: "<think>", with: "").trimmingLineBreaks,
                "\(summary.reasoning)")
        // The rest is answer: the plugin's words go on there.
        #expect(reply.reasoning.joined().trimmingLineBreaks == summary.reasoning && !reply.text.isEmpty && summary.stopReason == .endOfGeneration)
    }
}
