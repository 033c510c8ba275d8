import Testing
import TideCore
import TideScript

/// Every construct of the format, and what it parses to.
struct ScriptParserTests {
    @Test func aScriptWithEveryConstruct() throws {
        let text = #"""
            # A comment, then settings.
            @name capitals
            @description Checks two capitals.
            @model smollm2-135m-instruct
            @ctx-size 2048
            @template chatml
            @tool-format llama3
            @temperature 0
            @top-k 20
            @top-p 0.9
            @min-p 0.1
            @repeat-penalty 1.1
            @repeat-last-n 32
            @seed 42
            @max-tokens 64
            @stop "\n\n" END
            @plugin stop-after-sentences sentences=1

            system: You are a helpful assistant.
            user: What is the capital of France?
            expect: contains "Paris"
            expect: not icontains london
            expect: regex "^The"
            expect: length <= 200
            expect: tokens 1..64
            expect: stop plugin:stop-after-sentences
            expect-lua: #reply < 200
            user: Hi
            assistant: Hello! How can I help?
            @seed random
            @unload stop-after-sentences
            user: """
            Two lines,
            user: this is not a turn
            \"""
            \\ a backslash
            """
            """#
        let script = try ConversationScript(parsing: text)
        #expect(script.name == "capitals")
        #expect(script.items == [
            .comment(" A comment, then settings."),
            .directive(.name("capitals")),
            .directive(.description("Checks two capitals.")),
            .directive(.model("smollm2-135m-instruct")),
            .directive(.contextSize(2048)),
            .directive(.template("chatml")),
            .directive(.toolFormat(.llama3)),
            .directive(.parameter(ParameterSetting("temperature", 0))),
            .directive(.parameter(ParameterSetting("top-k", 20))),
            .directive(.parameter(ParameterSetting("top-p", 0.9))),
            .directive(.parameter(ParameterSetting("min-p", 0.1))),
            .directive(.parameter(ParameterSetting("repeat-penalty", 1.1))),
            .directive(.parameter(ParameterSetting("repeat-last-n", 32))),
            .directive(.parameter(ParameterSetting("seed", 42))),
            .directive(.parameter(ParameterSetting("max-tokens", 64))),
            .directive(.parameter(ParameterSetting("stop", ["\n\n", "END"]))),
            .directive(.plugin("stop-after-sentences sentences=1")),
            .blank,
            .turn(Turn(.system, "You are a helpful assistant.")),
            .turn(Turn(.user, "What is the capital of France?")),
            .expectation(Expectation(.init(.contains, .text("Paris")))),
            .expectation(Expectation(.init(.icontains, .text("london")), negated: true)),
            .expectation(Expectation(.init(.regex, .text("^The")))),
            .expectation(Expectation(.init(.length, .count(CountBound(upper: 200))))),
            .expectation(Expectation(.init(.tokens, .count(CountBound(lower: 1, upper: 64))))),
            .expectation(Expectation(.init(.stop, .text("plugin:stop-after-sentences")))),
            .expectation(Expectation(.init(.lua, .text("#reply < 200")))),
            .turn(Turn(.user, "Hi")),
            .turn(Turn(.assistant, "Hello! How can I help?")),
            .directive(.parameter(ParameterSetting("seed", nil))),
            .directive(.unload("stop-after-sentences")),
            .turn(Turn(.user, "Two lines,\nuser: this is not a turn\n\"\"\"\n\\ a backslash")),
        ])
        #expect(script.entries.map(\.line).suffix(3) == [30, 31, 32])
    }

    @Test func toleranceDirectivesReadAndPrintAsWritten() throws {
        let script = try ConversationScript(parsing: "@tolerance 0.25\n@tolerance 0\n@tolerance 2\nuser: Hi\n")
        #expect(script.items.prefix(3) == [.directive(.tolerance(0.25)), .directive(.tolerance(0)), .directive(.tolerance(2))])
        #expect(script.printed().hasPrefix("@tolerance 0.25\n@tolerance 0\n@tolerance 2\n"))
    }

    @Test func stepsReadTheScriptAsAConversation() throws {
        let script = try ConversationScript(parsing: """
            @temperature 0
            system: Be brief.
            user: Hi
            assistant: Hello!
            user: What is 2+2?
            # a comment between
            expect: contains "4"
            user: And 3+3?
            assistant: 6
            @generated stop="eos" tokens=2
            expect: contains "6"
            user: Bye
            """)
        let steps = script.steps
        #expect(steps.count == 6)
        #expect(steps[0] == .directive(.parameter(ParameterSetting("temperature", 0)), line: 1))
        #expect(steps[1] == .system("Be brief.", line: 2))
        #expect(steps[2] == .history(user: "Hi", rounds: [], assistant: "Hello!", reasoning: nil, line: 3))
        guard case .reply(let math) = steps[3], case .reply(let recorded) = steps[4], case .reply(let last) = steps[5] else {
            Issue.record("expected three replies: \(steps)")
            return
        }
        #expect(math.user == "What is 2+2?" && math.line == 5 && math.recorded == nil)
        #expect(math.expectations.map(\.line) == [7])
        #expect(recorded.recorded == RecordedReply(text: "6", record: ReplyRecord(stopReason: "eos", tokens: 2)))
        #expect(recorded.expectations.count == 1)
        #expect(last.user == "Bye" && last.expectations.isEmpty)
    }

    @Test func transcriptsFillInRepliesAndReplaceRecordedOnes() throws {
        let script = try ConversationScript(parsing: """
            user: What is 2+2?
            expect: contains "4"
            user: And 3+3?
            assistant: 7
            @generated stop="eos" tokens=2
            expect: contains "6"
            """)
        let replies = Dictionary(uniqueKeysWithValues: script.steps.compactMap { step -> (Int, RecordedReply)? in
            guard case .reply(let reply) = step else { return nil }
            return (reply.entry, RecordedReply(text: reply.user == "What is 2+2?" ? "4." : "6.",
                                               record: ReplyRecord(stopReason: "plugin:x: done", tokens: 3)))
        })
        let transcript = script.transcript(replies: replies)
        #expect(transcript.printed() == """
            user: What is 2+2?
            assistant: 4.
            @generated stop="plugin:x: done" tokens=3
            expect: contains "4"
            user: And 3+3?
            assistant: 6.
            @generated stop="plugin:x: done" tokens=3
            expect: contains "6"

            """)
        // A transcript is a script: it parses, and its replies are recorded ones.
        let again = try ConversationScript(parsing: transcript.printed())
        #expect(again == ConversationScript(entries: again.entries))
        #expect(again.steps.allSatisfy { if case .reply(let reply) = $0 { reply.recorded != nil } else { true } })
    }

    @Test func boundsAndQuotedStrings() throws {
        let script = try ConversationScript(parsing: #"""
            user: x
            expect: length < 10
            expect: length > 3
            expect: tokens == 8
            expect: tokens >= 2
            expect: contains "tab\there \"quoted\" \u{1F30A} back\\slash"
            """#)
        #expect(script.items.dropFirst() == [
            .expectation(Expectation(.init(.length, .count(CountBound(upper: 9))))),
            .expectation(Expectation(.init(.length, .count(CountBound(lower: 4))))),
            .expectation(Expectation(.init(.tokens, .count(CountBound(lower: 8, upper: 8))))),
            .expectation(Expectation(.init(.tokens, .count(CountBound(lower: 2))))),
            .expectation(Expectation(.init(.contains, .text("tab\there \"quoted\" 🌊 back\\slash")))),
        ])
        #expect(CountBound(lower: 4, upper: 9).contains(4) && !CountBound(lower: 4, upper: 9).contains(10))
    }

    @Test func windowsLineEndsAndIndentation() throws {
        let script = try ConversationScript(parsing: "@temperature 0\r\n  user: Hi\r\n\texpect: contains \"x\"\r\n")
        #expect(script.items == [.directive(.parameter(ParameterSetting("temperature", 0))), .turn(Turn(.user, "Hi")),
                                 .expectation(Expectation(.init(.contains, .text("x"))))])
    }
}

/// Editors that write a UTF-8 byte-order mark made the first line unparsable.
@Test func aByteOrderMarkIsIgnored() throws {
    let text = "@temperature 0\nuser: Hi\n"
    let marked = try ConversationScript(bytes: [0xEF, 0xBB, 0xBF] + Array(text.utf8))
    #expect(marked == (try ConversationScript(parsing: text)))
    #expect(try ConversationScript(parsing: "\u{FEFF}" + text) == ConversationScript(parsing: text))
}
