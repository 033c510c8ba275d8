import Testing
import TideCore

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

    @Test func draftsGrowWhileTheyPayAndPauseWhenTheyDoNot() {
        var policy = DraftPolicy()
        #expect(policy.nextLength() == 3)
        policy.record(drafted: 3, accepted: 3, cost: 2)
        #expect(policy.nextLength() == 7)
        policy.record(drafted: 7, accepted: 7, cost: 3.5)
        #expect(policy.nextLength() == 15)
        policy.record(drafted: 15, accepted: 15, cost: 6)
        #expect(policy.nextLength() == 15)
        // Less than half accepted, but paid: shorter drafts.
        policy.record(drafted: 15, accepted: 6, cost: 6)
        #expect(policy.nextLength() == 7)
        #expect(policy.matchLength == PromptLookup.shortestMatch)
        // A draft that did not pay: a pause of firstPause positions and a longer match, then drafts again.
        policy.record(drafted: 7, accepted: 1, cost: 3.5)
        for _ in 0..<DraftPolicy.firstPause { #expect(policy.nextLength() == 0) }
        #expect(policy.nextLength() == 3)
        #expect(policy.matchLength == PromptLookup.shortestMatch + 1)
        // Again: the pause doubles.
        policy.record(drafted: 3, accepted: 0, cost: 2.2)
        for _ in 0..<(2 * DraftPolicy.firstPause) { #expect(policy.nextLength() == 0) }
        #expect(policy.nextLength() == 3)
        // One that pays, while drafting has gained overall, resets it and the match length.
        policy.record(drafted: 3, accepted: 2, cost: 2.2)
        #expect(policy.matchLength == PromptLookup.shortestMatch + 1)
        policy.record(drafted: 3, accepted: 3, cost: 2.2)
        #expect(policy.matchLength == PromptLookup.shortestMatch)
        policy.record(drafted: 7, accepted: 0, cost: 3.5)
        #expect((0..<DraftPolicy.firstPause).allSatisfy { _ in policy.nextLength() == 0 })
        #expect(policy.nextLength() == 3)
    }

    @Test func aReplyThatLosesByDraftingKeepsDoublingItsPauses() {
        var policy = DraftPolicy()
        policy.record(drafted: 3, accepted: 0, cost: 2.2)
        while policy.nextLength() == 0 {}
        // Paying a little does not make up for the loss: the next refusal still doubles the pause.
        policy.record(drafted: 3, accepted: 2, cost: 2.2)
        policy.record(drafted: 3, accepted: 0, cost: 2.2)
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
            policy.record(drafted: 3, accepted: 0, cost: 3)
            while policy.nextLength() == 0 {}
        }
        policy.record(drafted: 3, accepted: 0, cost: 3)
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
