import Testing
@testable import TideLlama

/// Which queued requests one step of the batch engine decodes (no model needed).
@Suite struct StepSelectionTests {
    @Test func everySingleTokenAndTheOldestPromptsThatFitTheBudget() {
        // Four replies in progress and three prompts of 30 tokens: two prompts fit in 63.
        let selection = StepSelection(tokenCounts: [1, 30, 1, 30, 1, 30, 1], budget: 63)
        #expect(selection == StepSelection(shared: [0, 1, 2, 3, 4, 6], later: [5]))
    }

    @Test func aLaterShortPromptFillsWhatTheOldestLeft() {
        // 40 taken, 30 does not fit in the 23 left, 20 does; then 3 is left, and 5 waits.
        #expect(StepSelection(tokenCounts: [40, 30, 20, 5], budget: 63) == StepSelection(shared: [0, 2], later: [1, 3]))
        #expect(StepSelection(tokenCounts: [40, 30, 20, 3], budget: 63) == StepSelection(shared: [0, 2, 3], later: [1]))
    }

    @Test func theOldestPromptOverTheBudgetIsDecodedAloneAndNoOtherPromptIs() {
        let selection = StepSelection(tokenCounts: [1, 500, 20, 1, 90], budget: 63)
        #expect(selection == StepSelection(shared: [0, 3], alone: 1, later: [2, 4]))
    }

    @Test func aLongPromptBehindAShortOneWaitsForTheNextStep() {
        let selection = StepSelection(tokenCounts: [20, 500, 1], budget: 63)
        #expect(selection == StepSelection(shared: [0, 2], later: [1]))
        // Next step it is the oldest, and goes alone.
        #expect(StepSelection(tokenCounts: [500, 1, 30], budget: 63) == StepSelection(shared: [1], alone: 0, later: [2]))
    }

    @Test func withNoBudgetEveryPromptGoesAloneOneAStep() {
        #expect(StepSelection(tokenCounts: [1, 8, 8], budget: 0) == StepSelection(shared: [0], alone: 1, later: [2]))
    }

    @Test func onlySingleTokensAreAllShared() {
        #expect(StepSelection(tokenCounts: [1, 1, 1], budget: 63) == StepSelection(shared: [0, 1, 2]))
        #expect(StepSelection(tokenCounts: [], budget: 63) == StepSelection(shared: []))
    }
}
