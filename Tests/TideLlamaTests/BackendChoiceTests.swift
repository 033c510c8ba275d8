import Synchronization
import Testing
import TideCore
@testable import TideLlama
import TideTestSupport

extension RealModelTests {
    /// Replies alone in their context that read no scores have llama.cpp choose in its graph
    /// (``LlamaBatchEngine``, ``GraphChoice``; forced here on any device, ``GraphChoicePolicy``): plain greedy replies copy one token id instead of
    /// the scores; greedy replies under penalties and seeded replies under top-k copy the few best
    /// scores their chain can choose among, and the chain draws on the CPU. Token for token the
    /// replies of Tide's own choice from copied scores. A reply that reads the scores (a logits
    /// hook) falls back to copying them, and the next reply chooses in the graph again.
    @Suite struct BackendChoiceTests {
        /// The parameters of each turn of ``conversation(choosingOnBackend:)``.
        static let turns: [GenerationParameters] = {
            var greedy = GenerationParameters()
            greedy.temperature = 0
            greedy.maxTokens = 40
            // A draft needs the scores, and from its step on the reply copies them (drafting is
            // tested on its own, `DraftingTests`).
            greedy.draft = .off
            var seeded = greedy
            seeded.temperature = 0.9
            seeded.seed = 7
            var penalised = greedy
            penalised.repeatPenalty = 1.1
            penalised.repeatLastN = 64
            var seededPenalised = seeded
            seededPenalised.seed = 11
            seededPenalised.topK = 20
            seededPenalised.repeatPenalty = 1.3
            seededPenalised.presencePenalty = 0.4
            seededPenalised.repeatLastN = 32
            seededPenalised.logitBias = [LogitBias(.text(" the"), -3), LogitBias(.token(13), -1)]
            return [greedy, greedy, seeded, penalised, seededPenalised, greedy]
        }()

        static let questions = ["Write a short poem about the sea.", "Now one about the moon.", "And one about the stars.",
                                "Which one do you like best, and why?", "Write a fourth poem, about the wind.", "Thank you."]

        /// The turns of one conversation — greedy, greedy under a logits hook, seeded, greedy under
        /// a repeat penalty, seeded under penalties and biases, greedy — and how many tokens
        /// llama.cpp chose in its graph, and how many were chosen among the candidates it kept.
        func conversation(choosingOnBackend: Bool) async throws -> (replies: [CollectedReply], chosen: Int, amongCandidates: Int) {
            // This machine as it is: a simulated one (`TIDE_MACHINE`) moves the scores after the
            // decode, so its tokens are never chosen in the graph.
            var options = LlamaContextOptions(contextSize: 2048, machine: .underTest)
            options.machine = SimulatedMachine()
            let backend = try LlamaBackend(model: TestModel.shared, options: options)
            backend.graphChoices = choosingOnBackend ? .always : .never
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: Self.turns[0])
            var replies: [CollectedReply] = []
            for (index, (parameters, question)) in zip(Self.turns, Self.questions).enumerated() {
                session.hooks = index == 1 ? [EndBan()] : []
                session.parameters = parameters
                replies.append(try await session.reply(to: question).collect())
            }
            return (replies, backend.engine.tokensChosenOnBackend, backend.engine.tokensChosenAmongGraphCandidates)
        }

        @Test func tokensChosenInTheGraphAreTidesOwnChoices() async throws {
            let copied = try await conversation(choosingOnBackend: false)
            let inGraph = try await conversation(choosingOnBackend: true)
            for (index, (expected, reply)) in zip(copied.replies, inGraph.replies).enumerated() {
                #expect(reply.text == expected.text, "reply \(index)")
                #expect(reply.summary?.stopReason == expected.summary?.stopReason, "reply \(index)")
                #expect(reply.summary?.statistics.generatedTokens == expected.summary?.statistics.generatedTokens, "reply \(index)")
            }
            #expect(copied.chosen == 0 && copied.amongCandidates == 0)
            func tokens(of turns: [Int]) -> Int { turns.map { inGraph.replies[$0].summary?.statistics.generatedTokens ?? 0 }.reduce(0, +) }
            // Every token of the plain greedy replies (and an end token, where one ended there), none of the others.
            let best = tokens(of: [0, 5])
            #expect(best > 0 && (best...best + 2).contains(inGraph.chosen), "\(inGraph.chosen) of \(best)")
            // Every token of the seeded and penalised ones.
            let amongCandidates = tokens(of: [2, 3, 4])
            #expect(amongCandidates > 0 && (amongCandidates...amongCandidates + 3).contains(inGraph.amongCandidates),
                    "\(inGraph.amongCandidates) of \(amongCandidates)")
        }

        /// By default a plain greedy reply has llama.cpp choose its token in the graph only where
        /// the scores are on a GPU (on the CPU they are read in place, which costs less than
        /// llama.cpp's argmax there), and a sampled reply copies only the graph's candidates anywhere.
        @Test func byDefaultTheGraphChoosesWhereItSavesWork() async throws {
            var options = LlamaContextOptions(contextSize: 2048, machine: .underTest)
            options.machine = SimulatedMachine()
            let backend = try LlamaBackend(model: TestModel.shared, options: options)
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: Self.turns[0])
            let greedy = try await session.reply(to: Self.questions[0]).collect()
            let greedyTokens = greedy.summary?.statistics.generatedTokens ?? 0
            if TestModel.shared.placement.scoresOnGPU {
                #expect((greedyTokens...greedyTokens + 1).contains(backend.engine.tokensChosenOnBackend))
            } else {
                #expect(backend.engine.tokensChosenOnBackend == 0)
            }
            session.parameters = Self.turns[2]
            let seeded = try await session.reply(to: Self.questions[1]).collect()
            let seededTokens = seeded.summary?.statistics.generatedTokens ?? 0
            #expect(seededTokens > 0 && (seededTokens...seededTokens + 1).contains(backend.engine.tokensChosenAmongGraphCandidates))
        }

        /// How many candidates each chain needs: its cut plus what the stages before it may lower;
        /// none where a stage reads the whole vocabulary or raises a score.
        @Test func candidatesAreTheCutAndWhatTheStagesBeforeItMayLower() throws {
            let model = TestModel.shared
            func candidates(_ change: (inout GenerationParameters) -> Void) -> Int? {
                var parameters = GenerationParameters()
                change(&parameters)
                return SamplingPlan(parameters, model: model).graphCandidates
            }
            let theTokens = Set(try model.tokenize(" the")).count
            #expect(candidates { $0.temperature = 0.8 } == 40)
            #expect(candidates { $0.temperature = 0; $0.repeatPenalty = 1.1; $0.repeatLastN = 64 } == 65)
            #expect(candidates { $0.temperature = 0.8; $0.repeatPenalty = 1.1; $0.repeatLastN = 64;
                                 $0.logitBias = [LogitBias(.text(" the"), -2)] } == 40 + 64 + theTokens)
            #expect(candidates { $0.temperature = 0.8; $0.dryMultiplier = 0.8; $0.dryPenaltyLastN = 128 } == 40 + 128)
            #expect(candidates { $0.temperature = 0.8; $0.topK = 0 } == nil, "top-p over the whole vocabulary")
            #expect(candidates { $0.temperature = 0.8; $0.topNSigma = 1 } == nil, "top-n-σ reads every score")
            #expect(candidates { $0.temperature = 0.8; $0.mirostat = 2 } == nil)
            #expect(candidates { $0.temperature = 0.8; $0.logitBias = [LogitBias(.token(5), 2)] } == nil, "a raised token")
            #expect(candidates { $0.temperature = 0; $0.repeatPenalty = 0.9; $0.repeatLastN = 64 } == nil, "a penalty that raises")
            #expect(candidates { $0.temperature = 0.8; $0.topK = 20_000 } == nil, "not much less than the vocabulary")
        }
    }
}
