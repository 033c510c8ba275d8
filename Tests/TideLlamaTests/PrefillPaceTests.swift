import Testing
@testable import TideLlama

/// How much of a long prompt a step decodes beside the replies in progress (no model needed).
@Suite struct PrefillPaceTests {
    @Test func beforeAnyMeasurementAStepTakesAFewTokens() {
        #expect(PrefillPace().tokens(limit: 63) == PrefillPace.firstPiece)
        #expect(PrefillPace().tokens(limit: 4) == 4)
    }

    @Test func aStepTakesWhatCostsAShareOfTheRepliesStep() {
        var pace = PrefillPace()
        // Replies' steps of 70 ms, prompt tokens of 2 ms: 30 % of 70 ms is 10.5 tokens.
        pace.recordStep(seconds: 0.070)
        pace.recordPiece(tokens: 8, seconds: 0.016)
        #expect(pace.tokens(limit: 63) == 10)
        // Deeper into a long context each token costs more, and a step takes fewer.
        for _ in 0..<40 { pace.recordPiece(tokens: 9, seconds: 0.099) }
        #expect(pace.tokens(limit: 63) == 2)
        // Where prompt tokens are nearly free (a GPU), the limit holds.
        for _ in 0..<40 { pace.recordPiece(tokens: 63, seconds: 0.0063) }
        #expect(pace.tokens(limit: 63) == 63)
    }

    @Test func neverLessThanTwoTokens() {
        var pace = PrefillPace()
        pace.recordStep(seconds: 0.001)
        pace.recordPiece(tokens: 2, seconds: 1)
        #expect(pace.tokens(limit: 63) == 2)
        #expect(pace.tokens(limit: 1) == 2)
    }
}
