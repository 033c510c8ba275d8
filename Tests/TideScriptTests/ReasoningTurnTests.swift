import Testing
import TideCore
import TideScript

/// A thinking model's reasoning in scripts: a `reasoning:` turn right before the answer it led
/// to, as history or recorded in a transcript; written back as it was read.
struct ReasoningTurnTests {
    static let text = #"""
        user: Hi
        reasoning: A greeting.
        assistant: Hello!

        user: Capital of France?
        reasoning: """
        Paris, surely.
        """
        assistant: Paris.
        @generated stop="eos" tokens=12
        expect: equals "Paris."
        """#

    @Test func reasoningIsReadWithItsAnswer() throws {
        let script = try ConversationScript(parsing: Self.text)
        let steps = script.steps
        #expect(steps.first == .history(user: "Hi", rounds: [], assistant: "Hello!", reasoning: "A greeting.", line: 1))
        guard case .reply(let reply) = steps.last else {
            Issue.record("expected a reply: \(steps)")
            return
        }
        #expect(reply.recorded?.reasoning == "Paris, surely." && reply.recorded?.text == "Paris.")
        #expect(reply.recorded?.turn == RecordedTurn(answer: "Paris.", reasoning: "Paris, surely."))
        // Written back as it was read.
        let printed = script.printed()
        #expect(printed.contains("reasoning: A greeting.\nassistant: Hello!\n") && printed.contains("Paris, surely."))
        #expect(try ConversationScript(parsing: printed).printed() == printed)
    }

    @Test func reasoningWithoutItsAnswerIsRefused() {
        for (text, fragment) in [("user: Hi\nreasoning: Hmm.\n", "the assistant: turn it led to follows it"),
                                 ("user: Hi\nreasoning: Hmm.\nuser: Again\n", "the assistant: turn it led to follows it"),
                                 ("system: Be brief.\nreasoning: Hmm.\nassistant: Hi\n", "it follows the user turn it answers"),
                                 ("user: Hi\nreasoning: Hmm.\nexpect: equals \"x\"\n", "the assistant: turn it led to follows it")] {
            do {
                _ = try ConversationScript(parsing: text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect("\(error)".contains(fragment), "\(text): \(error)")
            }
        }
    }
}
