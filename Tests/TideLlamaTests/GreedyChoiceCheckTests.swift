import Testing
import TideCore
import TideFormat
@testable import TideLlama
import TideTestSupport

extension RealModelTests {
    /// Teacher forcing's common case under greedy decoding with stages that only lower scores
    /// (penalties, DRY, negative biases): an expected token that stays ahead after the stages is
    /// confirmed by a few scores (``SamplerChain/confirmsGreedyChoice(_:in:)``). Against a chain that always
    /// applies the full rule (the whole vocabulary sampled from a copy of its state, a bisection
    /// for a near-tie), every choice, near-tie margin and later state is the same.
    @Suite struct GreedyChoiceCheckTests {
        /// Greedy parameters with stages that only lower scores.
        static let cases: [[String: ParameterValue]] = [
            ["repeat_penalty": 1.3, "presence_penalty": 0.5, "frequency_penalty": 0.4],
            ["dry_multiplier": 2, "dry_base": 1.5, "dry_allowed_length": 1],
            ["logit_bias": [[" tide", -3], [13, false]], "repeat_penalty": 1.1],
            // A token named twice: both biases apply, over the whole vocabulary or a few candidates.
            ["logit_bias": [[" tide", -1.5], [" tide", -1.5], [" tides", -2]]],
        ]

        @Test(arguments: cases)
        func aFewScoresChooseAsTheFullRule(_ fields: [String: ParameterValue]) throws {
            var parameters = GenerationParameters()
            parameters.temperature = 0
            for (field, value) in fields {
                try #require(GenerationParameters.declaration(field: field)).set(value, in: &parameters)
            }
            let model = TestModel.shared
            let fast = try ReplySampler(parameters, model: model, toolCalls: ToolCallFormat.hermes.reader)
            let full = try ReplySampler(parameters, model: model, toolCalls: ToolCallFormat.hermes.reader, comparingTwoScores: false)
            #expect(fast.plan.chooser == .bestAfterLoweringStages && full.plan.chooser == .bestAfterStages)
            let history = try model.tokenize("The tide comes in and the tide goes out. The tide comes in, and out.")
            fast.chain.accept(prompt: history, model: model)
            full.chain.accept(prompt: history, model: model)
            var random = SplitMix(seed: 46)
            var recent = history
            let size = model.facts.vocabularySize
            var nearTies = 0
            let base = (0..<size).map { _ in Float.random(in: -4...4, using: &random) }
            for step in 0..<120 {
                let offset = Int.random(in: 0..<size, using: &random)
                var scores = Array(base[offset...] + base[..<offset])
                // The expected token: the clear best, a recent (penalised) token just ahead of the
                // rest, one just behind a recent token (ahead of it once that is penalised, where
                // a stage penalises it), or any token.
                let wanted: Int32
                switch step % 4 {
                case 0:
                    wanted = Int32.random(in: 0..<Int32(size), using: &random)
                    scores[Int(wanted)] = 9
                case 1:
                    wanted = recent.randomElement(using: &random)!
                    scores[Int(wanted)] = 4 + Float.random(in: 0...0.5, using: &random)
                case 2:
                    wanted = Int32.random(in: 0..<Int32(size), using: &random)
                    scores[Int(wanted)] = 6
                    scores[Int(recent.randomElement(using: &random)!)] = 6.3
                default:
                    wanted = Int32.random(in: 0..<Int32(size), using: &random)
                }
                var choices: [DecodedToken] = []
                var margins: [Float?] = []
                for sampler in [fast, full] {
                    sampler.tolerance.expectation = ToleranceChoice.Expectation(token: wanted, tolerance: Tolerance.standard)
                    var copy = scores
                    choices.append(try copy.withUnsafeMutableBufferPointer {
                        try sampler.step($0.baseAddress!, model: model, adjustingLogits: nil)
                    })
                    margins.append(sampler.tolerance.nearTie)
                }
                #expect(choices[0] == choices[1], "step \(step)")
                #expect(margins[0] == margins[1], "step \(step)")
                if margins[0] != nil { nearTies += 1 }
                if case .token(let id?, _) = choices[0] { recent.append(id) }
            }
            // Every path was taken: a few scores, the full rule's other choice, and its near-ties.
            #expect(fast.chain.confirmedWithoutSampling >= 30 && full.chain.confirmedWithoutSampling == 0, "\(fast.chain.confirmedWithoutSampling)")
            #expect(nearTies > 0)
        }

        /// Whether a reply is greedy is decided once (``GenerationParameters/isGreedy``): the plan's
        /// chooser follows it, and so does whether a reply is reproducible without a seed.
        @Test func thePlanChoosesAsTheParametersSay() throws {
            let model = TestModel.shared
            func plan(_ change: (inout GenerationParameters) -> Void) -> (SamplingPlan, GenerationParameters) {
                var parameters = GenerationParameters()
                parameters.temperature = 0
                parameters.repeatPenalty = 1
                change(&parameters)
                return (SamplingPlan(parameters, model: model), parameters)
            }
            let cases: [(SamplingPlan.Chooser, (inout GenerationParameters) -> Void)] = [
                (.best, { _ in }),
                (.best, { $0.topK = 5; $0.topP = 0.5 }),  // cuts that keep the best, left out when greedy
                (.bestAfterLoweringStages, { $0.repeatPenalty = 1.2 }),
                (.bestAfterStages, { $0.logitBias = [LogitBias(.text(" tide"), 2)] }),
                (.bestAfterStages, { $0.typicalP = 0.5 }),
                (.draw, { $0.temperature = 0.7 }),
                (.draw, { $0.temperature = 0.7; $0.mirostat = 2 }),
            ]
            for (chooser, change) in cases {
                let (plan, parameters) = plan(change)
                #expect(plan.chooser == chooser, "\(parameters)")
                #expect(plan.isGreedy == parameters.isGreedy)
                #expect(parameters.isReproducible == (parameters.isGreedy && !parameters.removesTopTokens))
                #expect((plan.graphChoice == .best) == (chooser == .best))
            }
            #expect(plan({ $0.xtcProbability = 0.5 }).1.isReproducible == false)
            #expect(plan({ $0.temperature = 0.7; $0.seed = 3 }).1.isReproducible)
        }

        @Test func theBestOfAVocabularyIsTheFirstOfItsEqualsAndItsRivalsAreAllFound() {
            var random = SplitMix(seed: 7)
            for count in [1, 15, 16, 17, 49_152] {
                var scores = (0..<count).map { _ in Float(Int.random(in: -50...50, using: &random)) / 8 }
                if count > 3 { scores[count - 2] = -.infinity }
                scores.withUnsafeBufferPointer { buffer in
                    let top = TopScores.best(of: buffer.baseAddress!, count: count)
                    let best = scores.max()!
                    #expect(top.id == Int32(scores.firstIndex(of: best)!) && top.logit == best)
                    for threshold: Float in [best, 5, -7, -.infinity] {
                        let expected = scores.indices.filter { scores[$0] >= threshold }.map(Int32.init)
                        let found = TopScores.tokens(of: buffer.baseAddress!, count: count, atLeast: threshold, limit: 128)
                        #expect(found == (expected.count <= 128 ? expected : nil), "\(count) \(threshold)")
                    }
                }
            }
        }
    }
}
