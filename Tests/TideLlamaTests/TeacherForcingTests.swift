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
                // The first reply runs to its 200 tokens, whichever words the model picks.
                session.hooks = index == 0 ? [EndBan()] : []
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
            let backends: [any ChatBackend] = [
                try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024)),
                try LlamaBatchEngine(model: TestModel.shared, sequences: 1, options: LlamaContextOptions(contextSize: 1024)).makeBackend(),
            ]
            for backend in backends {
                let session = { ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: self.parameters()) }
                let original = try await session().reply(to: question).collect().text
                let tokens = try TestModel.shared.tokenize(original)
                try #require(tokens.count > 3, "\(original)")
                // The reply's first tokens, then words the model did not choose.
                let edited = TestModel.shared.detokenize(Array(tokens.prefix(3))) + " Zanzibar, of course."
                let editAt = zip(tokens, try TestModel.shared.tokenize(edited)).prefix { $0 == $1 }.count
                #expect(editAt == 3)
                let reply = try await session().reply(to: question, forcing: edited).collect()
                #expect(reply.text == original)
                #expect(reply.summary?.teacherForcing == .regenerated(from: editAt))
            }
        }

        /// A recording longer than the reply the model gives, or one the model would go on
        /// from: the reply is still the model's.
        @Test func aReplyEndingElsewhereIsTheModels() async throws {
            func session() throws -> ChatSession {
                ChatSession(backend: try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024)),
                            systemPrompt: "You are a helpful assistant.", parameters: parameters())
            }
            let (plain, forced) = (try session(), try session())
            let first = try await plain.reply(to: "What is the capital of France?").collect().text
            let longer = try await forced.reply(to: "What is the capital of France?", forcing: first + " It is big.").collect()
            #expect(longer.text == first)
            #expect(longer.summary?.teacherForcing == .regenerated(from: try TestModel.shared.tokenize(first).count))
            let second = try await plain.reply(to: "And of Italy?").collect().text
            let start = TestModel.shared.detokenize(Array(try TestModel.shared.tokenize(second).prefix(2)))
            let shorter = try await forced.reply(to: "And of Italy?", forcing: start).collect()
            #expect(shorter.text == second)
            #expect(shorter.summary?.teacherForcing == .regenerated(from: 2))
        }

        /// Without flash attention llama.cpp scores a batch otherwise than single tokens, as a GPU
        /// does: recorded replies are still checked by teacher forcing, within the tolerance, and
        /// not generated again; with a tolerance of 0 they are generated, and the report says why.
        @Test func inexactBatchesAreCheckedWithinTheTolerance() async throws {
            var options = LlamaContextOptions(contextSize: 2048)
            options.flashAttention = false
            let generated = try await converse(try LlamaBackend(model: TestModel.shared, options: options), parameters())
            let recorded = generated.map(\.text)
            let forced = try await converse(try LlamaBackend(model: TestModel.shared, options: options), parameters(), recorded: recorded)
            for (original, replay) in zip(generated, forced) {
                #expect(replay.text == original.text)
                #expect(replay.summary?.statistics.generatedTokens == original.summary?.statistics.generatedTokens)
                guard case .confirmed(let tokens, let nearTies)? = replay.summary?.teacherForcing else {
                    Issue.record("not confirmed: \(String(describing: replay.summary?.teacherForcing))")
                    continue
                }
                #expect(tokens == replay.summary?.statistics.generatedTokens)
                #expect(Double(nearTies.largestMargin) <= Tolerance.standard)
            }
            var exact = parameters()
            exact.tolerance = 0
            let strict = try await converse(try LlamaBackend(model: TestModel.shared, options: options), exact, recorded: recorded)
            for reply in strict {
                guard case .skipped(.unavailable(let why))? = reply.summary?.teacherForcing else {
                    Issue.record("forced with a tolerance of 0: \(String(describing: reply.summary?.teacherForcing))")
                    continue
                }
                #expect(why.contains("tolerance is 0"))
            }
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
