import Foundation
import Synchronization
import Testing
import TideCore
import TideLlama
import TideTestSupport

extension RealModelTests {
    /// Recorded replies checked by teacher forcing: the same replies as generating, token for
    /// token, on one context and on the sequences of a batch, where batches are exact; within
    /// the tolerance where they drift (``TestModel/batchesAreExact``).
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

        /// Greedy parameters with the strictest rule the machine allows: the exact one (a tolerance
        /// of 0) where batches are exact, the default tolerance where they drift.
        func strictest(maxTokens: Int = 200) -> GenerationParameters {
            var parameters = parameters(maxTokens: maxTokens)
            parameters.tolerance = TestModel.batchesAreExact ? 0 : Tolerance.standard
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
        /// Where batches drift, a greedy reply is confirmed within the tolerance (near-ties
        /// counted); a seeded draw from the drifted scores may land on another token than the
        /// recording's, and the reply is then generated again from there.
        func expectConfirmed(_ makeBackend: () throws -> any ChatBackend, _ parameters: GenerationParameters) async throws {
            let generated = try await converse(try makeBackend(), parameters)
            let forced = try await converse(try makeBackend(), parameters, recorded: generated.map(\.text))
            for (original, replay) in zip(generated, forced) {
                let summary = try #require(replay.summary)
                #expect(original.summary?.teacherForcing == nil)
                if !TestModel.batchesAreExact, parameters.temperature > 0, case .regenerated(let from)? = summary.teacherForcing {
                    #expect(from < original.summary?.statistics.generatedTokens ?? 0)
                    continue
                }
                #expect(replay.text == original.text)
                #expect(summary.stopReason == original.summary?.stopReason)
                #expect(summary.statistics.generatedTokens == original.summary?.statistics.generatedTokens)
                if TestModel.batchesAreExact {
                    #expect(summary.teacherForcing == .confirmed(tokens: summary.statistics.generatedTokens))
                } else if case .confirmed(let tokens, let nearTies)? = summary.teacherForcing {
                    #expect(tokens == summary.statistics.generatedTokens)
                    #expect(Double(nearTies.largestMargin) <= parameters.tolerance)
                } else {
                    Issue.record("not confirmed: \(String(describing: summary.teacherForcing))")
                }
            }
            // Long enough to cross several chunks, and the 256 cached tokens past which llama.cpp
            // would otherwise split a one-token decode's attention (docs/conversations.md).
            #expect(generated[0].summary?.statistics.generatedTokens == 200)
            #expect((forced.last?.summary?.statistics.promptTokens ?? 0) > 256)
        }

        @Test func greedyRepliesAreConfirmedOnOneContext() async throws {
            try await expectConfirmed({ try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048, machine: .underTest)) },
                                      parameters())
        }

        @Test func seededSamplingIsConfirmedToo() async throws {
            try await expectConfirmed({ try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048, machine: .underTest)) },
                                      parameters(temperature: 0.9, seed: 7))
        }

        @Test func greedyRepliesAreConfirmedOnTheSequencesOfABatch() async throws {
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: LlamaContextOptions(contextSize: 2048, machine: .underTest))
            defer { engine.shutdown() }
            try await expectConfirmed({ try engine.makeBackend() }, parameters())
        }

        /// A reply edited by hand is caught at the edited token, and generated from there: the
        /// reply is the model's, as if nothing had been recorded.
        @Test func anEditedReplyIsRegeneratedFromTheEdit() async throws {
            let question = "What is the capital of France?"
            let backends: [any ChatBackend] = [
                try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest)),
                try LlamaBatchEngine(model: TestModel.shared, sequences: 1, options: LlamaContextOptions(contextSize: 1024, machine: .underTest)).makeBackend(),
            ]
            for backend in backends {
                // The strictest rule: these tests are about where a recording stops holding.
                let session = { ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: self.strictest()) }
                let original = try await session().reply(to: question).collect().text
                let tokens = try TestModel.shared.tokenize(original)
                try #require(tokens.count > 3, "\(original)")
                // The reply's first tokens, then words the model did not choose.
                let edited = TestModel.shared.detokenize(Array(tokens.prefix(3))) + " Zanzibar, of course."
                let editAt = zip(tokens, try TestModel.shared.tokenize(edited)).prefix { $0 == $1 }.count
                #expect(editAt == 3)
                let reply = try await session().reply(to: question, forcing: edited).collect()
                // Where batches drift, the token after the edit is the batch's choice, which may
                // part from the plain reply's at a near-tie.
                if TestModel.batchesAreExact { #expect(reply.text == original) }
                #expect(reply.text.hasPrefix(TestModel.shared.detokenize(Array(tokens.prefix(3)))))
                #expect(!reply.text.contains("Zanzibar"))
                #expect(reply.summary?.teacherForcing == .regenerated(from: editAt))
            }
        }

        /// A recording longer than the reply the model gives, or one the model would go on
        /// from: the reply is still the model's.
        @Test func aReplyEndingElsewhereIsTheModels() async throws {
            func session() throws -> ChatSession {
                ChatSession(backend: try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest)),
                            systemPrompt: "You are a helpful assistant.", parameters: strictest())
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

        /// Lowers the score of the token at reply position `position` so that it trails the best of
        /// the others by `margin` (or, with `relative`, by `margin` below where it was): a near-tie
        /// made on purpose, as another machine's kernels might.
        final class Demote: ChatHook, Sendable {
            let name = "demote"
            let points: Set<HookPoint> = [.logits]
            let position: Int
            let token: Int32
            let margin: Float
            let relative: Bool
            init(position: Int, token: Int32, margin: Float, relative: Bool = false) {
                (self.position, self.token, self.margin, self.relative) = (position, token, margin, relative)
            }
            func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
                guard reply.tokenCount == position else { return }
                // A token that spells the start of this one would spell the recording otherwise,
                // which teacher forcing follows: out of the way, so that the near-tie is the question.
                let spelled = TestModel.shared.tokenText(token)
                for candidate in logits.top(40) where candidate.id != token && !candidate.text.isEmpty && spelled.hasPrefix(candidate.text) {
                    logits.ban(candidate.id)
                }
                if relative { return logits.bias(token, by: -margin) }
                let top = logits.top(2)
                guard let own = top.first(where: { $0.id == token }), let other = top.first(where: { $0.id != token }) else { return }
                logits.bias(token, by: -(own.logit - other.logit + margin))
            }
        }

        /// A recorded token that trails the sampler's choice by less than the tolerance is confirmed,
        /// counted as a near-tie with its margin, and the positions after it are confirmed as well
        /// (the sampler's state is that of having chosen it); by more, the reply is generated from
        /// there. Greedy, and with a seeded draw, whose random numbers must stay in step.
        /// Where batches drift, the drift makes near-ties of its own (a margin up to twice its
        /// amount) and a seeded draw may part from the recording anywhere: greedy only, the
        /// made near-tie among the drift's, and the one beyond the tolerance made wider.
        @Test func aRecordedTokenWithinTheToleranceIsANearTie() async throws {
            let question = "Write a detailed essay about the history of the Roman Empire."
            let exact = TestModel.batchesAreExact
            for (temperature, seed) in (exact ? [(0.0, nil), (0.9, 7)] : [(0.0, nil)]) as [(Double, UInt32?)] {
                func session(_ hooks: [any ChatHook], tolerance: Double) throws -> ChatSession {
                    var parameters = parameters(temperature: temperature, seed: seed, maxTokens: 40)
                    parameters.tolerance = tolerance
                    return ChatSession(backend: try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest)),
                                       systemPrompt: "You are a helpful assistant.", parameters: parameters, hooks: hooks)
                }
                // The tokens the model chose (the tokenizer may spell the text otherwise).
                let chosen = ChosenTokens()
                let original = try await session([EndBan(), chosen], tolerance: 1).reply(to: question).collect()
                let tokens = chosen.ids.withLock { $0 }
                try #require(tokens.count == 40, "\(original.text)")
                let demote = { (margin: Float) in Demote(position: 20, token: tokens[20], margin: margin, relative: seed != nil) }

                let within = try await session([EndBan(), demote(0.3)], tolerance: 1).reply(to: question, forcing: original.text).collect()
                #expect(within.text == original.text)
                guard case .confirmed(40, let nearTies)? = within.summary?.teacherForcing else {
                    Issue.record("\(temperature): \(String(describing: within.summary?.teacherForcing))")
                    continue
                }
                if !exact {
                    #expect(nearTies.count >= 1 && nearTies.largestMargin >= 0.3 - 0.01 && nearTies.largestMargin <= 1, "\(nearTies)")
                } else if seed == nil {
                    #expect(nearTies.count == 1)
                    #expect(abs(nearTies.largestMargin - 0.3) < 0.01, "\(nearTies)")
                } else {
                    // Lowered by 0.3, the draw may still pick it; raised back by at most 0.3, it does.
                    #expect(nearTies.count <= 1 && nearTies.largestMargin <= 0.3 + 0.001, "\(nearTies)")
                }

                // Greedy decoding never picks a token that trails by more than the tolerance.
                guard seed == nil else { continue }
                let beyond = try await session([EndBan(), demote(exact ? 1.5 : 3)], tolerance: 1).reply(to: question, forcing: original.text)
                    .collect()
                #expect(beyond.summary?.teacherForcing == .regenerated(from: 20))
                let strict = try await session([EndBan(), demote(0.3)], tolerance: 0.2).reply(to: question, forcing: original.text).collect()
                if exact {
                    #expect(strict.summary?.teacherForcing == .regenerated(from: 20))
                } else if case .regenerated(let from)? = strict.summary?.teacherForcing {
                    #expect(from <= 20)
                } else {
                    Issue.record("\(String(describing: strict.summary?.teacherForcing))")
                }
            }
        }

        /// A recording is text: where the model spells it with other tokens than the tokenizer
        /// does (here a grammar holds the text and " Paris" is banned, so the model spells it in
        /// pieces), the recording still holds, and the reply is confirmed whole, on one context
        /// and on a batch's sequence, with the strictest rule the machine allows.
        @Test func aRecordingTheModelSpellsOtherwiseIsConfirmed() async throws {
            let text = "The capital of France is Paris."
            let format = try ReplyFormat.grammar("root ::= \"\(text)\"")
            let paris = try #require(try TestModel.shared.tokenize(" Paris").first)
            try #require(try TestModel.shared.tokenize(" Paris") == [paris])
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            defer { engine.shutdown() }
            let backends: [() throws -> any ChatBackend] = [
                { try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest)) },
                { try engine.makeBackend() },
            ]
            for makeBackend in backends {
                func session() throws -> ChatSession {
                    var parameters = strictest(maxTokens: 32)
                    parameters.format = format
                    return ChatSession(backend: try makeBackend(), systemPrompt: "You are a helpful assistant.", parameters: parameters,
                                       hooks: [BanHook(token: paris)])
                }
                let generated = try await session().reply(to: "What is the capital of France?").collect()
                #expect(generated.text == text)
                let tokens = try #require(generated.summary?.statistics.generatedTokens)
                #expect(tokens > (try TestModel.shared.tokenize(text)).count, "the model spelled Paris in pieces")
                let forced = try await session().reply(to: "What is the capital of France?", forcing: text).collect()
                #expect(forced.text == text)
                if TestModel.batchesAreExact {
                    #expect(forced.summary?.teacherForcing == .confirmed(tokens: tokens))
                } else if case .confirmed(let count, _)? = forced.summary?.teacherForcing {
                    // The batch's drift may choose another of the spellings.
                    #expect(count == forced.summary?.statistics.generatedTokens)
                } else {
                    Issue.record("not confirmed: \(String(describing: forced.summary?.teacherForcing))")
                }
            }
        }

        /// Where a batch scores otherwise than single tokens (a GPU, or llama.cpp without flash
        /// attention), recorded replies are still checked by teacher forcing, within the tolerance:
        /// a simulated batch drift (``BatchDrift``) puts another token ahead of the recorded one
        /// by a known amount at one known position of the forced chunks. Below the tolerance the reply
        /// is confirmed, with that near-tie and its margin; above it, it is generated again from
        /// exactly there; with a tolerance of 0 it is not forced at all, and the report says why.
        /// On one context and on a batch's sequence.
        @Test func inexactBatchesAreCheckedWithinTheTolerance() async throws {
            let question = Self.turns[0]
            for sequenced in [false, true] {
                /// A backend whose batches drift so (none: `nil`).
                func backend(_ drift: BatchDrift?) throws -> any ChatBackend {
                    var options = LlamaContextOptions(contextSize: 1024, machine: .underTest)
                    options.machine.batchDrift = drift
                    return sequenced ? try LlamaBatchEngine(model: TestModel.shared, sequences: 1, options: options).makeBackend()
                        : try LlamaBackend(model: TestModel.shared, options: options)
                }
                func reply(_ backend: any ChatBackend, tolerance: Double = Tolerance.standard, forcing: String? = nil,
                           hooks: [any ChatHook] = []) async throws -> CollectedReply
                {
                    var parameters = parameters(maxTokens: 40)
                    parameters.tolerance = tolerance
                    parameters.draft = .off
                    let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters,
                                              hooks: [EndBan()] + hooks)
                    return try await session.reply(to: question, forcing: forcing).collect()
                }
                // Generated a token at a time, the drift never applies.
                let tokens = ChosenTokens()
                let original = try await reply(try backend(nil), hooks: [tokens])
                let promptTokens = try #require(original.summary?.statistics.promptTokens)
                #expect(original.summary?.statistics.generatedTokens == 40)
                // The drift puts a token the recording does not begin with ahead of the model's
                // choice, where the recording, as the tokenizer spells it, holds the model's own
                // tokens up to there.
                let generated = tokens.ids.withLock { $0 }
                let agreeing = zip(generated, try TestModel.shared.tokenize(original.text)).prefix { $0 == $1 }.count
                let drifted = min(agreeing - 1, 20)
                try #require(drifted >= 2, "the tokenizer spells the reply as the model did at first")
                let intruder = try #require(try TestModel.shared.tokenize(" Zanzibar").first)
                let at = { (amount: Float) in
                    BatchDrift(amount: amount, placement: .init(scoredPosition: promptTokens + drifted, token: intruder))
                }

                let within = try await reply(try backend(at(0.3)), forcing: original.text)
                #expect(within.text == original.text)
                guard case .confirmed(40, let nearTies)? = within.summary?.teacherForcing else {
                    Issue.record("not confirmed: \(String(describing: within.summary?.teacherForcing))")
                    continue
                }
                #expect(nearTies.count == 1)
                #expect(abs(nearTies.largestMargin - 0.3) < 0.01, "\(nearTies)")

                let beyond = try await reply(try backend(at(1.5)), forcing: original.text)
                #expect(beyond.summary?.teacherForcing == .regenerated(from: drifted))
                #expect(beyond.text != original.text, "the batch's own choice at the drifted position, and the model's words after it")

                let strict = try await reply(try backend(at(0.3)), tolerance: 0, forcing: original.text)
                guard case .skipped(.unavailable(let why))? = strict.summary?.teacherForcing else {
                    Issue.record("forced with a tolerance of 0: \(String(describing: strict.summary?.teacherForcing))")
                    continue
                }
                #expect(why.contains("tolerance is 0"))
            }
        }

        /// The probe that decides whether a model's recorded replies can be forced: exact for the
        /// bundled model with flash attention on a CPU (a GPU's batches drift: docs/speed.md); a
        /// machine whose batches drift is not (whether this CPU's kernels without flash attention
        /// drift, and how far, is the CPU's business).
        @Test func theProbeTellsExactBatchesFromInexactOnes() throws {
            let threads = LlamaContextOptions.coreCount
            if GPUDevice.first == nil { #expect(TestModel.shared.scoresBatchesExactly(threads: threads)) }
            var options = LlamaContextOptions(contextSize: 256, machine: .underTest)
            options.machine.batchDrift = BatchDrift(amount: 0.1)
            let drifting = try LlamaBackend(model: TestModel.shared, options: options)
            #expect(drifting.teacherForcingUnavailable(tolerance: 0)?.contains("tolerance is 0") == true)
            #expect(drifting.teacherForcingUnavailable(tolerance: 1) == nil)
        }

        @Test func samplingWithoutASeedIsGenerated() async throws {
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            let session = ChatSession(backend: backend, systemPrompt: nil, parameters: parameters(temperature: 0.8, maxTokens: 8))
            let reply = try await session.reply(to: "Hello", forcing: "Hi there").collect()
            #expect(reply.summary?.teacherForcing == .skipped(.unseeded))
        }
    }
}
