import Foundation
import Synchronization
import Testing
import TideCore
import TideLlama
import TideTestSupport

extension RealModelTests {
    /// Prompt-lookup drafting: replies that copy their prompt draft and check tokens in batches,
    /// and, where batches are exact, every reply — its text, its tokens, what hooks see, where it
    /// stops, what the cache holds for the next turn — is the one decoding a token at a time
    /// gives. Where they drift (``TestModel/batchesAreExact``), `always` still drafts, and each
    /// reply is the same from one run to the next and confirmed by teacher forcing.
    @Suite struct DraftingTests {
        static let passage = """
            The lighthouse stood on a rocky point at the edge of the harbour. Every evening the keeper climbed the \
            one hundred and twelve steps of the spiral staircase, trimmed the wick, polished the great lens and lit the \
            lamp. Ships passing in the night saw its beam sweep across the water every ten seconds, and they knew where \
            the rocks were. In winter the storms came from the west, and waves broke over the gallery, but the light \
            never went out. The keeper kept a logbook in which he wrote the weather, the ships he saw and the hours the \
            lamp burned.
            """
        /// Copying turns (which draft) between free ones (which mostly do not), in one conversation.
        static let turns = ["Repeat the following text exactly, word for word: " + passage,
                            "Write a long story about a lighthouse keeper.",
                            "Turn this list into a numbered list, one item per line: apples, pears, plums, cherries, "
                                + "oranges, lemons, limes, grapes, melons, peaches, apricots, figs.",
                            "Quote the sentence of this text that mentions storms, then explain it: " + passage]

        /// A hook that records every token, every text piece and the best score of every
        /// position it is shown, in order.
        final class Recorder: ChatHook {
            let name = "recorder"
            let points: Set<HookPoint> = [.logits, .token, .stop]
            let seen = Mutex<[String]>([])
            func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
                let best = logits.top(1).first
                seen.withLock { $0.append("logits \(reply.tokenCount) \(best?.id ?? -1) \(best?.logit ?? 0)") }
            }
            func shouldStop(_ reply: ReplyProgress) throws -> StopDecision {
                seen.withLock { $0.append("stop? \(reply.tokenCount) \(reply.text.utf8.count)") }
                return .proceed
            }
            func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision {
                seen.withLock { $0.append("token \(token.index) \(token.id ?? -1) \(token.text)") }
                return .pass
            }
        }

        /// A hook that takes back every "keeper" and "light" as soon as it is generated, as
        /// the ban-phrases plugin does.
        final class Banner: ChatHook {
            let name = "banner"
            let points: Set<HookPoint> = [.stop]
            var rewindWindow: Int { 16 }
            func shouldStop(_ reply: ReplyProgress) throws -> StopDecision {
                for word in ["keeper", "light"] {
                    if let range = reply.text.range(of: word, options: .backwards),
                       reply.text.utf8.distance(from: range.upperBound, to: reply.text.endIndex) < 8 {
                        return .rewind(Rewind(offset: reply.text.utf8.distance(from: reply.text.startIndex, to: range.lowerBound)))
                    }
                }
                return .proceed
            }
        }

        /// Where the drafting reply runs: in a context of its own, or on a sequence of a batch
        /// whose other sequence writes freely at the same time.
        enum Placement: String, CaseIterable, CustomTestStringConvertible {
            case alone, inBatch
            var testDescription: String { rawValue }
        }

        struct Conversation {
            var replies: [CollectedReply]
            var seen: [String]
            var cachedTokens: Int
        }

        func converse(_ draft: DraftMode, temperature: Double = 0, seed: UInt32? = nil, repeatPenalty: Double = 1,
                      stop: [String] = [], maxTokens: Int = 300, hooked: Bool = false, banning: Bool = false,
                      placement: Placement = .alone, forcing recorded: [String]? = nil) async throws -> Conversation
        {
            let engine = placement == .inBatch
                ? try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: LlamaContextOptions(contextSize: 4096, machine: .underTest)) : nil
            defer { engine?.shutdown() }
            let backend = try engine?.makeBackend()
                ?? LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 4096, machine: .underTest))
            let neighbour = try engine.map { engine in
                ChatSession(backend: try engine.makeBackend(), parameters: self.parameters(temperature: 0.8, seed: 5, maxTokens: 200))
            }
            var parameters = self.parameters(temperature: temperature, seed: seed, maxTokens: maxTokens)
            parameters.repeatPenalty = repeatPenalty
            parameters.stop = stop
            parameters.draft = draft
            let recorder = Recorder()
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters,
                                      hooks: (hooked ? [recorder] : []) + (banning ? [Banner()] : []))
            var replies: [CollectedReply] = []
            for (index, turn) in Self.turns.enumerated() {
                async let other = neighbour?.reply(to: DraftingTests.turns[1]).collect()
                replies.append(try await session.reply(to: turn, forcing: recorded?[index]).collect())
                _ = try await other
            }
            return Conversation(replies: replies, seen: recorder.seen.withLock { $0 }, cachedTokens: backend.cachedTokenCount)
        }

        func parameters(temperature: Double, seed: UInt32?, maxTokens: Int) -> GenerationParameters {
            var parameters = GenerationParameters()
            parameters.temperature = temperature
            parameters.seed = seed
            parameters.maxTokens = maxTokens
            parameters.maxRewinds = 1000
            return parameters
        }

        /// Runs the conversation both ways: where batches are exact, the replies agree in every
        /// respect; and the drafting one did check drafts (the copying turns accept most of theirs).
        /// The plain one runs alone; the drafting one where `placement` says. Where batches drift,
        /// a drafted reply may part from the plain one at a near-tie the drift reorders: the
        /// drafting conversation, run again, is the same in every respect (its drafts are sized by
        /// the context, not by the machine's load), and a greedy one is confirmed by teacher forcing.
        func expectSame(temperature: Double = 0, seed: UInt32? = nil, repeatPenalty: Double = 1, stop: [String] = [],
                        hooked: Bool = false, banning: Bool = false, placement: Placement = .alone) async throws -> Conversation
        {
            let plain = try await converse(.off, temperature: temperature, seed: seed, repeatPenalty: repeatPenalty,
                                           stop: stop, hooked: hooked, banning: banning)
            // Drafting whenever there is a draft, so that it happens whatever checks cost here.
            let drafted = try await converse(.always, temperature: temperature, seed: seed, repeatPenalty: repeatPenalty,
                                             stop: stop, hooked: hooked, banning: banning, placement: placement)
            #expect(plain.replies.allSatisfy { $0.summary?.statistics.drafting == nil })
            let drafting = drafted.replies.compactMap { $0.summary?.statistics.drafting }
            #expect(drafting.reduce(0) { $0 + $1.accepted } > 0, "the copying turns check drafts")
            let expected: Conversation
            if TestModel.batchesAreExact {
                expected = plain
            } else {
                expected = try await converse(.always, temperature: temperature, seed: seed, repeatPenalty: repeatPenalty,
                                              stop: stop, hooked: hooked, banning: banning, placement: placement)
                if temperature == 0 {
                    let forced = try await converse(.off, repeatPenalty: repeatPenalty, stop: stop, hooked: hooked, banning: banning,
                                                    forcing: drafted.replies.map(\.text))
                    for (reply, replay) in zip(drafted.replies, forced.replies) {
                        #expect(replay.text == reply.text)
                        // A reply a stop string ended is recorded without the stop: forcing reaches
                        // the recording's end before the model's, and generates the stop again.
                        if !stop.isEmpty, case .regenerated? = replay.summary?.teacherForcing { continue }
                        if case .confirmed? = replay.summary?.teacherForcing {} else {
                            Issue.record("a drafted reply not confirmed: \(String(describing: replay.summary?.teacherForcing))")
                        }
                    }
                }
            }
            for (one, other) in zip(expected.replies, drafted.replies) {
                #expect(other.text == one.text)
                #expect(other.summary?.stopReason == one.summary?.stopReason)
                #expect(other.summary?.statistics.generatedTokens == one.summary?.statistics.generatedTokens)
                #expect(other.summary?.statistics.reusedPromptTokens == one.summary?.statistics.reusedPromptTokens)
                #expect(other.summary?.statistics.rewinds == one.summary?.statistics.rewinds)
            }
            #expect(drafted.seen == expected.seen)
            #expect(drafted.cachedTokens == expected.cachedTokens)
            return drafted
        }

        @Test(arguments: Placement.allCases) func greedyRepliesAreTheSame(placement: Placement) async throws {
            let drafted = try await expectSame(placement: placement)
            // How much of it the model copies is its own business (a grammar makes it certain in
            // `lookupDraftsWhereChecksPayAndAlwaysWhateverTheyCost`); that it drafted is not.
            #expect(drafted.replies[0].summary?.statistics.drafting != nil)
        }

        @Test func seededAndPenalisedRepliesAreTheSame() async throws {
            _ = try await expectSame(temperature: 0.7, seed: 11)
            _ = try await expectSame(repeatPenalty: 1.1)
        }

        @Test(arguments: Placement.allCases) func hooksSeeEveryTokenInOrder(placement: Placement) async throws {
            let drafted = try await expectSame(hooked: true, placement: placement)
            #expect(drafted.seen.count > 400)
        }

        @Test(arguments: Placement.allCases) func rewindsTakeBackDraftedTokensAlike(placement: Placement) async throws {
            let drafted = try await expectSame(hooked: true, banning: true, placement: placement)
            #expect(drafted.replies.reduce(0) { $0 + ($1.summary?.statistics.rewinds ?? 0) } > 3)
            #expect(!drafted.replies[0].text.contains("keeper"))
        }

        @Test func stopStringsEndDraftedRepliesAlike() async throws {
            // A word from the middle of the first reply, whichever words this machine's model
            // picks: a reply that reaches it stops there, drafted or not. Where batches drift, the
            // drafted reply's word (the plain one may part from it before).
            let free = try await converse(TestModel.batchesAreExact ? .off : .always, maxTokens: 120)
            let words = free.replies[0].text.split(whereSeparator: { !$0.isLetter }).filter { $0.count >= 5 }
            let word = String(try #require(words.dropFirst(words.count / 2).first, "\(free.replies[0].text)"))
            let drafted = try await expectSame(stop: [word, "7."])
            #expect(drafted.replies[0].summary?.stopReason == .stopString(word))
        }

        /// `lookup` drafts where a check pays, by what checks cost on the machine, and batches are
        /// exact: with costs given as dear as single decodes it never drafts; with cheap ones it
        /// does, where batches are exact, and never where they drift; `always` does whatever checks
        /// cost, and wherever batches drift. The reply copies the passage by a grammar, so the
        /// words, and the drafts the prompt offers, are the same on any machine.
        @Test(arguments: Placement.allCases) func lookupDraftsWhereChecksPayAndAlwaysWhateverTheyCost(placement: Placement) async throws {
            func drafting(_ mode: DraftMode, costs: CheckCosts, drift: BatchDrift? = nil) async throws -> DraftStatistics? {
                var options = LlamaContextOptions(contextSize: 1024, machine: .underTest)
                options.machine.checkCosts = costs
                if let drift { options.machine.batchDrift = drift }
                let engine = placement == .inBatch ? try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: options) : nil
                defer { engine?.shutdown() }
                var parameters = GenerationParameters()
                parameters.temperature = 0
                parameters.draft = mode
                parameters.format = ReplyFormat.exactly(Self.passage)
                let session = ChatSession(backend: try engine?.makeBackend() ?? LlamaBackend(model: TestModel.shared, options: options),
                                          systemPrompt: "You are a helpful assistant.", parameters: parameters)
                // A neighbour holds the batch's other sequence, idle: `lookup` drafts while no other
                // sequence decodes beside it.
                let neighbour = try engine?.makeBackend()
                let reply = try await session.reply(to: Self.turns[0]).collect()
                _ = neighbour
                #expect(reply.text == Self.passage)
                return reply.summary?.statistics.drafting
            }
            #expect(try await drafting(.lookup, costs: .dear) == nil)
            let cheap = try await drafting(.lookup, costs: .cheap)
            if TestModel.batchesAreExact { #expect((cheap?.accepted ?? 0) > 20) } else { #expect(cheap == nil) }
            #expect((try await drafting(.always, costs: .dear)?.accepted ?? 0) > 20)
            let drift = BatchDrift(amount: 0.3)
            #expect(try await drafting(.lookup, costs: .cheap, drift: drift) == nil)
            #expect((try await drafting(.always, costs: .dear, drift: drift)?.accepted ?? 0) > 20)
        }

        /// Where batches drift, `always` drafts, each drafted position's token the sampler's
        /// choice from the batch's scores: a free greedy reply is the same whatever checks cost
        /// (its drafts are sized by the context alone, not by the machine's load or timings), and
        /// teacher forcing confirms it there within the tolerance.
        @Test func alwaysWhereBatchesDriftGivesOneReplyWhateverChecksCost() async throws {
            func reply(costs: CheckCosts, forcing recorded: String? = nil) async throws -> CollectedReply {
                var options = LlamaContextOptions(contextSize: 2048, machine: .underTest)
                options.machine.checkCosts = costs
                options.machine.batchDrift = BatchDrift(amount: 0.3)
                var parameters = GenerationParameters()
                parameters.temperature = 0
                parameters.maxTokens = 200
                parameters.draft = recorded == nil ? .always : .off
                let session = ChatSession(backend: try LlamaBackend(model: TestModel.shared, options: options),
                                          systemPrompt: "You are a helpful assistant.", parameters: parameters, hooks: [EndBan()])
                return try await session.reply(to: Self.turns[0], forcing: recorded).collect()
            }
            let cheap = try await reply(costs: .cheap)
            let dear = try await reply(costs: .dear)
            #expect(dear.text == cheap.text)
            #expect(dear.summary?.statistics.drafting == cheap.summary?.statistics.drafting)
            // The path under test: drafts were checked (whichever words the model copies).
            #expect((cheap.summary?.statistics.drafting?.verifications ?? 0) > 0, "the copying turn drafts")
            let forced = try await reply(costs: .dear, forcing: cheap.text)
            #expect(forced.text == cheap.text)
            guard case .confirmed(let tokens, let nearTies)? = forced.summary?.teacherForcing else {
                Issue.record("not confirmed: \(String(describing: forced.summary?.teacherForcing))")
                return
            }
            #expect(tokens == forced.summary?.statistics.generatedTokens)
            #expect(Double(nearTies.largestMargin) <= Tolerance.standard)
        }

        @Test func replyCheckedByTeacherForcingDoesNotDraft() async throws {
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048, machine: .underTest))
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = 120
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
            let first = try await session.reply(to: Self.turns[0]).collect()
            let replay = ChatSession(backend: try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 2048, machine: .underTest)),
                                     systemPrompt: "You are a helpful assistant.", parameters: parameters)
            let forced = try await replay.reply(to: Self.turns[0], forcing: first.text).collect()
            #expect(forced.text == first.text)
            #expect(forced.summary?.statistics.drafting == nil)
            #expect(forced.summary?.teacherForcing == .confirmed(tokens: first.summary?.statistics.generatedTokens ?? -1))
        }
    }
}
