import Synchronization
import Testing
import TideCore
@_spi(Benchmarks) @testable import TideLlama
import TideTestSupport

extension RealModelTests {
    /// Plain greedy replies alone in their context have llama.cpp choose each token in its graph
    /// (``LlamaBatchEngine``), copying one token id instead of the scores: token for token the
    /// replies of Tide's own choice from copied scores. A reply that reads the scores (a logits
    /// hook) or samples at random falls back to copying them, and the next greedy reply chooses
    /// in the graph again.
    @Suite struct BackendChoiceTests {
        /// Four turns of one conversation — greedy, greedy under a logits hook, seeded, greedy —
        /// and how many tokens llama.cpp chose in its graph.
        func conversation(choosingOnBackend: Bool) async throws -> (replies: [CollectedReply], chosen: Int) {
            // This machine as it is: a simulated one (`TIDE_MACHINE`) moves the scores after the
            // decode, so its tokens are never chosen in the graph.
            var options = LlamaContextOptions(contextSize: 2048)
            options.machine = SimulatedMachine()
            let backend = try LlamaBackend(model: TestModel.shared, options: options)
            backend.choosesOnBackend = choosingOnBackend
            var greedy = GenerationParameters()
            greedy.temperature = 0
            greedy.maxTokens = 48
            // A draft needs the scores, and from its step on the reply copies them (drafting is
            // tested on its own, `DraftingTests`).
            greedy.draft = .off
            var seeded = greedy
            seeded.temperature = 0.9
            seeded.seed = 7
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: greedy)
            var replies = [try await session.reply(to: "Write a short poem about the sea.").collect()]
            session.hooks = [EndBan()]
            replies.append(try await session.reply(to: "Now one about the moon.").collect())
            session.hooks = []
            session.parameters = seeded
            replies.append(try await session.reply(to: "And one about the stars.").collect())
            session.parameters = greedy
            replies.append(try await session.reply(to: "Thank you. Which one do you like best?").collect())
            return (replies, backend.engine.tokensChosenOnBackend)
        }

        @Test func greedyTokensChosenInTheGraphAreTidesOwnChoices() async throws {
            let copied = try await conversation(choosingOnBackend: false)
            let inGraph = try await conversation(choosingOnBackend: true)
            for (index, (expected, reply)) in zip(copied.replies, inGraph.replies).enumerated() {
                #expect(reply.text == expected.text, "reply \(index)")
                #expect(reply.summary?.stopReason == expected.summary?.stopReason, "reply \(index)")
                #expect(reply.summary?.statistics.generatedTokens == expected.summary?.statistics.generatedTokens, "reply \(index)")
            }
            #expect(copied.chosen == 0)
            // Every token of the two greedy replies (and an end token, where one ended there), none of the others.
            let greedyTokens = [0, 3].map { inGraph.replies[$0].summary?.statistics.generatedTokens ?? 0 }.reduce(0, +)
            #expect(greedyTokens > 0 && (greedyTokens...greedyTokens + 2).contains(inGraph.chosen), "\(inGraph.chosen) of \(greedyTokens)")
        }
    }
}
