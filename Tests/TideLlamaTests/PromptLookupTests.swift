import Testing
import TideCore
import TideLlama

@Suite struct PromptLookupTests {
    @Test func draftsWhatFollowedTheLongestLatestMatch() {
        // "5 6 7" occurs twice; "4 5 6 7" only once, earlier: the longer match wins.
        var lookup = PromptLookup(prompt: [1, 4, 5, 6, 7, 8, 9, 2, 5, 6, 7, 3, 3])
        for token: Int32 in [4, 5, 6, 7] { lookup.append(token) }
        #expect(Array(lookup.draft(limit: 3)) == [8, 9, 2])
        #expect(Array(lookup.draft(limit: 11)) == [8, 9, 2, 5, 6, 7, 3, 3, 4, 5, 6])
        #expect(Array(lookup.draft(limit: 20)) == [8, 9, 2, 5, 6, 7, 3, 3, 4, 5, 6, 7])
        // Among matches of equal length, the latest.
        let repeated = PromptLookup(prompt: [1, 2, 3, 10, 1, 2, 3, 20, 1, 2, 3])
        #expect(Array(repeated.draft(limit: 1)) == [20])
    }

    @Test func noMatchOfThreeTokensMakesNoDraft() {
        #expect(PromptLookup.shortestMatch == 3)
        #expect(PromptLookup(prompt: [1, 2, 3, 4, 2, 3]).draft(limit: 4).isEmpty)
        #expect(PromptLookup(prompt: [1, 2, 3]).draft(limit: 4).isEmpty)
        #expect(PromptLookup(prompt: [1, 2, 3, 1, 2, 3]).draft(limit: 0).isEmpty)
        #expect(Array(PromptLookup(prompt: [1, 2, 3, 1, 2, 3]).draft(limit: 4)) == [1, 2, 3])
    }

    @Test func aRewindForgetsTheTokensTakenBack() {
        var lookup = PromptLookup(prompt: [1, 2, 3, 4, 9, 9])
        for token: Int32 in [1, 2, 3] { lookup.append(token) }
        #expect(Array(lookup.draft(limit: 1)) == [4])
        lookup.truncate(to: 6)
        #expect(lookup.tokens == [1, 2, 3, 4, 9, 9])
        #expect(lookup.draft(limit: 2).isEmpty)
    }

    /// Check costs as the records below measure them, so that they scale nothing.
    static let costs = CheckCosts(chunks: [4, 8, 16], costs: [2.2, 3.5, 6])

    @Test func checkCostsAreInterpolatedBetweenTheSizesMeasured() {
        let costs = CheckCosts(chunks: [2, 4, 8, 15], costs: [1.96, 2.5, 3.22, 5.51])
        #expect(costs.cost(ofChunk: 1) == 1)
        #expect(costs.cost(ofChunk: 2) == 1.96)
        #expect(abs(costs.cost(ofChunk: 3) - 2.23) < 1e-9)
        #expect(abs(costs.cost(ofChunk: 30) - 11.02) < 1e-9, "past the largest, as much per token")
    }

    /// A check is made only when the reply could afford its whole draft being refused: 2% of the
    /// tokens so far, plus what the checks gained.
    @Test func aCheckIsMadeOnlyWhenTheReplyCanAffordItsRefusal() {
        let costs = CheckCosts(chunks: [2, 4, 8, 15], costs: [1.96, 2.5, 3.22, 5.51])
        var policy = DraftPolicy()
        #expect(policy.affordableLength(most: 3, tokens: 40, costs: costs) == 0, "a refused draft of 1 would lose 0.96 decodes, over 0.8")
        #expect(policy.affordableLength(most: 3, tokens: 48, costs: costs) == 0, "1 is affordable, but shorter than the shortest draft")
        #expect(policy.affordableLength(most: 3, tokens: 74, costs: costs) == 0, "a refused draft of 3 would lose 1.5 decodes, over 1.48")
        #expect(policy.affordableLength(most: 3, tokens: 75, costs: costs) == 3)
        #expect(policy.affordableLength(most: 0, tokens: 1000, costs: costs) == 0)
        policy.record(drafted: 3, accepted: 3, cost: 2.5, costs: costs)
        // Gained 1.5: with 2% of 79 tokens, a budget of 3.08 decodes.
        let length = policy.affordableLength(most: 15, tokens: 79, costs: costs)
        #expect(costs.cost(ofChunk: length + 1) - 1 <= 3.08 && costs.cost(ofChunk: length + 2) - 1 > 3.08, "\(length)")
        #expect(length > 3, "accepted drafts pay for longer ones")
    }

    @Test func draftsGrowWhileTheyPayAndPauseWhenTheyDoNot() {
        var policy = DraftPolicy()
        #expect(policy.nextLength() == 3)
        policy.record(drafted: 3, accepted: 3, cost: 2, costs: Self.costs)
        #expect(policy.nextLength() == 7)
        policy.record(drafted: 7, accepted: 7, cost: 3.5, costs: Self.costs)
        #expect(policy.nextLength() == 15)
        policy.record(drafted: 15, accepted: 15, cost: 6, costs: Self.costs)
        #expect(policy.nextLength() == 15)
        // Less than half accepted, but paid: shorter drafts.
        policy.record(drafted: 15, accepted: 6, cost: 6, costs: Self.costs)
        #expect(policy.nextLength() == 7)
        #expect(policy.matchLength == PromptLookup.shortestMatch)
        // A draft that did not pay: a pause of firstPause positions and a longer match, then drafts again.
        policy.record(drafted: 7, accepted: 1, cost: 3.5, costs: Self.costs)
        for _ in 0..<DraftPolicy.firstPause { #expect(policy.nextLength() == 0) }
        #expect(policy.nextLength() == 3)
        #expect(policy.matchLength == PromptLookup.shortestMatch + 1)
        // Again: the pause doubles.
        policy.record(drafted: 3, accepted: 0, cost: 2.2, costs: Self.costs)
        for _ in 0..<(2 * DraftPolicy.firstPause) { #expect(policy.nextLength() == 0) }
        #expect(policy.nextLength() == 3)
        // One that pays, while drafting has gained overall, resets it and the match length.
        policy.record(drafted: 3, accepted: 2, cost: 2.2, costs: Self.costs)
        #expect(policy.matchLength == PromptLookup.shortestMatch + 1)
        policy.record(drafted: 3, accepted: 3, cost: 2.2, costs: Self.costs)
        #expect(policy.matchLength == PromptLookup.shortestMatch)
        policy.record(drafted: 7, accepted: 0, cost: 3.5, costs: Self.costs)
        #expect((0..<DraftPolicy.firstPause).allSatisfy { _ in policy.nextLength() == 0 })
        #expect(policy.nextLength() == 3)
    }

    @Test func aReplyThatLosesByDraftingKeepsDoublingItsPauses() {
        var policy = DraftPolicy()
        policy.record(drafted: 3, accepted: 0, cost: 2.2, costs: Self.costs)
        while policy.nextLength() == 0 {}
        // Paying a little does not make up for the loss: the next refusal still doubles the pause.
        policy.record(drafted: 3, accepted: 2, cost: 2.2, costs: Self.costs)
        policy.record(drafted: 3, accepted: 0, cost: 2.2, costs: Self.costs)
        var paused = 0
        while policy.nextLength() == 0 { paused += 1 }
        #expect(paused == 2 * DraftPolicy.firstPause)
    }

    @Test func theLookupHonoursALongerMatch() {
        let lookup = PromptLookup(prompt: [1, 2, 3, 4, 5, 9, 2, 3, 4])
        #expect(Array(lookup.draft(limit: 2)) == [5, 9])
        #expect(lookup.draft(limit: 2, minimumMatch: 4).isEmpty)
    }

    @Test func pausesStopGrowingAtTheLongest() {
        var policy = DraftPolicy()
        for _ in 0..<12 {
            policy.record(drafted: 3, accepted: 0, cost: 3, costs: Self.costs)
            while policy.nextLength() == 0 {}
        }
        policy.record(drafted: 3, accepted: 0, cost: 3, costs: Self.costs)
        var paused = 0
        while policy.nextLength() == 0 { paused += 1 }
        #expect(paused == DraftPolicy.longestPause)
    }

    @Test func statisticsCountTokensPerCheck() {
        var statistics = DraftStatistics()
        #expect(statistics.acceptanceRate == 0 && statistics.tokensPerVerification == 0)
        statistics.verifications = 4
        statistics.drafted = 28
        statistics.accepted = 21
        #expect(statistics.acceptanceRate == 0.75)
        #expect(statistics.tokensPerVerification == 6.25)
    }
}
