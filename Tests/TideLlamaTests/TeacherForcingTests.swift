import Foundation
import Testing
import TideCore
import TideLlama

extension RealModelTests {
    /// Recorded replies checked by teacher forcing: the same replies as generating, token for
    /// token, on one context and on the sequences of a batch.
    @Suite struct TeacherForcingTests {
        static let turns = ["Write a detailed essay about the history of the Roman Empire.",
                            "Now summarise that in three sentences.", "Thank you. What is one more interesting fact about it?"]

        func parameters(temperature: Double = 0, seed: UInt32? = nil, maxTokens: Int = 200) -> GenerationParameters {
            var parameters = GenerationParameters()
            parameters.temperature = temperature
            parameters.seed = seed
            parameters.maxTokens = maxTokens
            return parameters
        }

        /// The replies to `turns` in one conversation, each forced to `recorded[i]` when given.
        func converse(_ backend: any ChatBackend, _ parameters: GenerationParameters, recorded: [String]? = nil) async throws
            -> [CollectedReply]
        {
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
            var replies: [CollectedReply] = []
            for (index, turn) in Self.turns.enumerated() {
                replies.append(try await session.reply(to: turn, forcing: recorded?[index]).collect())
            }
            return replies
        }

        /// Generates the conversation, then replays it forced to its own replies on a fresh
        /// context: every reply is confirmed whole, and text, stop reason and length are the same.
        func expectConfirmed(_ makeBackend: () throws -> any ChatBackend, _ parameters: GenerationParameters) async throws {
            let generated = try await converse(try makeBackend(), parameters)
            let forced = try await converse(try makeBackend(), parameters, recorded: generated.map(\.text))
            for (original, replay) in zip(generated, forced) {
                let summary = try #require(replay.summary)
                #expect(replay.text == original.text)
                #expect(summary.stopReason == original.summary?.stopReason)
                #expect(summary.statistics.generatedTokens == original.summary?.statistics.generatedTokens)
                #expect(summary.teacherForcing == .confirmed(tokens: summary.statistics.generatedTokens))
                #expect(original.summary?.teacherForcing == nil)
            }
            // Long enough to cross several chunks, and the 256 cached tokens past which llama.cpp
            // would otherwise split a one-token decode's attention (docs/conversations.md).
            #expect(generated[0].summary?.statistics.generatedTokens == 200)
            #expect((forced.last?.summary?.statistics.promptTokens ?? 0) > 256)
        }

        @Test func greedyRepliesAreConfirmedOnOneContext() async throws {
            try await expectConfirmed({ try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048)) },
                                      parameters())
        }

        @Test func seededSamplingIsConfirmedToo() async throws {
            try await expectConfirmed({ try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048)) },
                                      parameters(temperature: 0.9, seed: 7))
        }

        @Test func greedyRepliesAreConfirmedOnTheSequencesOfABatch() async throws {
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: LlamaContextOptions(contextSize: 2048))
            defer { engine.shutdown() }
            try await expectConfirmed({ try engine.makeBackend() }, parameters())
        }

        /// A reply edited by hand is caught at the edited token, and generated from there: the
        /// reply is the model's, as if nothing had been recorded.
        @Test func anEditedReplyIsRegeneratedFromTheEdit() async throws {
            let question = "What is the capital of France?"
            let original = "The capital of France is Paris."
            let edited = "The capital of France is Lyon, of course."
            let backends: [any ChatBackend] = [
                try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024)),
                try LlamaBatchEngine(model: TestModel.shared, sequences: 1, options: LlamaContextOptions(contextSize: 1024)).makeBackend(),
            ]
            let editAt = zip(try TestModel.shared.tokenize(original), try TestModel.shared.tokenize(edited)).prefix { $0 == $1 }.count
            for backend in backends {
                let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters())
                let reply = try await session.reply(to: question, forcing: edited).collect()
                #expect(reply.text == original)
                #expect(reply.summary?.teacherForcing == .regenerated(from: editAt))
                #expect(editAt == 5)
            }
        }

        /// A recording longer than the reply the model gives, or one the model would go on
        /// from: the reply is still the model's.
        @Test func aReplyEndingElsewhereIsTheModels() async throws {
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024))
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters())
            let longer = try await session.reply(to: "What is the capital of France?",
                                                 forcing: "The capital of France is Paris. It is big.").collect()
            #expect(longer.text == "The capital of France is Paris.")
            #expect(longer.summary?.teacherForcing == .regenerated(from: 7))
            let shorter = try await session.reply(to: "And of Italy?", forcing: "The capital").collect()
            #expect(shorter.text == "The capital of Italy is Rome.")
            #expect(shorter.summary?.teacherForcing == .regenerated(from: 2))
        }

        /// The probe that decides whether a model's recorded replies can be forced: exact for the
        /// bundled model with flash attention, and it tells when it is not (without flash
        /// attention, llama.cpp's attention rounds a batch differently).
        @Test func theProbeTellsExactBatchesFromInexactOnes() {
            let threads = LlamaContextOptions.coreCount
            #expect(TestModel.shared.scoresBatchesExactly(threads: threads))
            #expect(!TestModel.shared.scoresBatchesExactly(threads: threads, flashAttention: false))
        }

        @Test func samplingWithoutASeedIsGenerated() async throws {
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024))
            let session = ChatSession(backend: backend, systemPrompt: nil, parameters: parameters(temperature: 0.8, maxTokens: 8))
            let reply = try await session.reply(to: "Hello", forcing: "Hi there").collect()
            #expect(reply.summary?.teacherForcing == .skipped(.unseeded))
        }
    }
}
