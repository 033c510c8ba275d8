import Testing
import TideCore
import TideScript

/// Tool calls and results in scripts: written as history, given for the model to answer, or
/// recorded in a transcript with the reply that made them.
struct ToolTurnTests {
    static let text = #"""
        @tool-choice required
        @max-tool-rounds 2
        user: Add 2 and 3.
        tool-call: {"name": "add", "arguments": {"a": 2, "b": 3}}
        tool: 5
        assistant: It is 5.

        user: And 4 and 4?
        assistant: Let me see.
        tool-call: {"name": "add", "arguments": {"a": 4, "b": 4}}
        tool-call: {"name": "log", "arguments": {}}
        tool: 8
        tool: logged
        expect: tool-rounds == 0

        user: Once more.
        tool-call: {"name": "add", "arguments": {"a": 1}}
        tool: 1
        assistant: Then:
        tool-call: {"name": "add", "arguments": {"a": 2}}
        tool: 2
        assistant: Done.
        @generated stop="eos" tokens=30 rounds=1
        expect: tool-call add
        expect: not tool-call sub
        expect: tool-args {"type": "object", "required": ["a"]}
        expect: tool-args schemas/add.json
        """#

    @Test func toolTurnsReadAsRoundsOfHistoryGivenAndRecorded() throws {
        let script = try ConversationScript(parsing: Self.text)
        let steps = script.steps
        #expect(steps.prefix(2) == [.directive(.parameter(ParameterSetting("tool-choice", "required")), line: 1),
                                    .directive(.parameter(ParameterSetting("max-tool-rounds", 2)), line: 2)])
        guard case .history(let user, let rounds, let answer, _, _) = steps[2] else {
            Issue.record("expected written history: \(steps[2])")
            return
        }
        #expect(user == "Add 2 and 3." && answer == "It is 5.")
        #expect(rounds == [ToolRound(calls: [#"{"name": "add", "arguments": {"a": 2, "b": 3}}"#], results: ["5"])])
        let messages = ToolRound.messages(rounds, at: 2)
        #expect(messages.map(\.role) == [.assistant, .tool])
        #expect(messages[0].toolCalls == [ToolCall(id: "call_2_1", name: "add", arguments: #"{"a":2,"b":3}"#,
                                                   written: #"{"name": "add", "arguments": {"a": 2, "b": 3}}"#)])
        #expect(messages[1].toolCallID == "call_2_1" && messages[1].content == "5")

        guard case .reply(let given) = steps[3], case .reply(let recorded) = steps[4] else {
            Issue.record("expected two replies: \(steps)")
            return
        }
        #expect(given.user == "And 4 and 4?" && given.recorded == nil)
        #expect(given.given == [ToolRound(text: "Let me see.", calls: [#"{"name": "add", "arguments": {"a": 4, "b": 4}}"#,
                                                                        #"{"name": "log", "arguments": {}}"#],
                                          results: ["8", "logged"])])
        #expect(script.entries[given.entry].item == .turn(Turn(.tool, "logged")), "the reply is written after the results")
        #expect(given.expectations.map(\.expectation) == [Expectation(.init(.toolRounds, .count(CountBound(lower: 0, upper: 0))))])

        #expect(recorded.given.map(\.results) == [["1"]])
        let reply = try #require(recorded.recorded)
        #expect(reply.text == "Done." && reply.record == ReplyRecord(stopReason: "eos", tokens: 30, rounds: 1))
        #expect(reply.rounds == [ToolRound(text: "Then:", calls: [#"{"name": "add", "arguments": {"a": 2}}"#], results: ["2"])])
        #expect(reply.turn.rounds.map(\.calls.first?.arguments) == [#"{"a":2}"#])
        #expect(recorded.expectations.map(\.expectation.check) == [
            .init(.toolCall, .text("add")), .init(.toolCall, .text("sub")),
            .init(.toolArguments, .text(#"{"type": "object", "required": ["a"]}"#)), .init(.toolArguments, .text("schemas/add.json")),
        ])
        #expect(recorded.expectations[1].expectation.negated)
        #expect(script.printed() == Self.text + "\n", "printed back as written")
    }

    /// A transcript writes each reply's own rounds before its answer, after the rounds it was
    /// given; writing it again over a transcript replaces the recorded rounds.
    @Test func aTranscriptRecordsTheRoundsOfEachReply() throws {
        let script = try ConversationScript(parsing: """
            user: Add.
            expect: tool-call add
            user: Given.
            tool-call: {"name": "add", "arguments": {}}
            tool: 0
            """)
        let steps = script.steps.compactMap { if case .reply(let reply) = $0 { reply } else { nil } }
        let round = ToolRound(text: "", calls: [#"{"name": "add", "arguments": {"a": 1}}"#], results: ["1"])
        let first = RecordedReply(text: "One.", record: ReplyRecord(stopReason: "eos", tokens: 9, rounds: 1), rounds: [round])
        let second = RecordedReply(text: "Zero.", record: ReplyRecord(stopReason: "eos", tokens: 2))
        let transcript = script.transcript(replies: [steps[0].entry: first, steps[1].entry: second])
        let expected = """
            user: Add.
            tool-call: {"name": "add", "arguments": {"a": 1}}
            tool: 1
            assistant: One.
            @generated stop="eos" tokens=9 rounds=1
            expect: tool-call add
            user: Given.
            tool-call: {"name": "add", "arguments": {}}
            tool: 0
            assistant: Zero.
            @generated stop="eos" tokens=2

            """
        #expect(transcript.printed() == expected)
        let again = try ConversationScript(parsing: expected)
        let replayed = again.steps.compactMap { if case .reply(let reply) = $0 { reply } else { nil } }
        #expect(replayed.map(\.recorded) == [first, second])
        #expect(again.transcript(replies: [replayed[0].entry: first, replayed[1].entry: second]).printed() == expected,
                "a transcript of a transcript is itself")
    }
}
