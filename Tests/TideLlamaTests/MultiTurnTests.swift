import Testing
import TideCore
import TideLlama
import TideTestSupport

extension RealModelTests {
    @Suite struct MultiTurnTests {
        @Test func aFollowUpReusesTheCacheAndMatchesAFreshSession() async throws {
            let (session, backend) = try TestModel.session()
            _ = try await session.reply(to: "What is the capital of France?").collect()
            let history = session.history
            let followUp = try await session.reply(to: "And what is the capital of Italy?").collect()
            let reused = try #require(followUp.summary?.statistics)

            let (fresh, _) = try TestModel.session()
            fresh.history = history
            let replay = try await fresh.reply(to: "And what is the capital of Italy?").collect()
            let evaluatedFresh = try #require(replay.summary?.statistics)

            #expect(followUp.text == replay.text)
            #expect(reused.reusedPromptTokens > 20)
            #expect(reused.evaluatedPromptTokens < evaluatedFresh.evaluatedPromptTokens)
            #expect(evaluatedFresh.reusedPromptTokens == 0)
            #expect(backend.cachedTokenCount > reused.promptTokens)
        }

        @Test func cancellingMidStreamLeavesAConsistentSession() async throws {
            // The reply would run for 1000 tokens (several seconds); the consumer leaves at its first text.
            let (session, backend) = try TestModel.session { $0.maxTokens = 1000 }
            for try await event in session.reply(to: "Write a long story about a lighthouse keeper.") {
                if case .text = event { break }
            }
            while session.history.count < 3 { await Task.yield() }
            let partial = try #require(session.history.last)
            #expect(partial.role == .assistant && partial.interrupted && !partial.content.isEmpty)

            let next = try await session.reply(to: "What is the capital of France?").collect()
            #expect(!next.text.isEmpty)

            // The cache after the cancelled turn agrees with the history: a fresh session fed the
            // same history produces the same greedy reply.
            let (fresh, _) = try TestModel.session { $0.maxTokens = 1000 }
            fresh.history = Array(session.history.dropLast(2))
            let replay = try await fresh.reply(to: "What is the capital of France?").collect()
            #expect(replay.text == next.text)
            #expect(backend.cachedTokenCount > 0)
        }

        @Test func dropOldestKeepsAConversationGoingInASmallContext() async throws {
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 256, machine: .underTest))
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = 48
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.",
                                      parameters: parameters, overflowPolicy: .dropOldest)
            for question in ["Name a fruit.", "Name a colour.", "Name an animal.", "Name a city.", "Name a river."] {
                let reply = try await session.reply(to: question).collect()
                #expect(reply.summary != nil)
            }
            #expect(session.history.count == 11)
        }
    }
}
