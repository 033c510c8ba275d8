import Testing
import TideScript

/// The text and timing checks: what they parse to and how they print (their errors are in
/// ``ScriptErrorTests``).
struct TextCheckTests {
    @Test func checksParseAndPrintBack() throws {
        let text = """
            user: Hi
            expect: equals "Hello there."
            expect: istarts-with "hello"
            expect: not ends-with "?"
            expect: contains-any "Paris" "Rome"
            expect: icontains-all "a b" "c"
            expect: words 2..40
            expect: sentences <= 3
            expect: ttft <= 500 ms
            expect: rate >= 10 tok/s
            expect: not same-as-recorded

            """
        let script = try ConversationScript(parsing: text)
        let checks = script.items.compactMap { item -> TideScript.Expectation? in
            if case .expectation(let expectation) = item { expectation } else { nil }
        }
        #expect(checks.map(\.check) == [
            .matches(.whole, "Hello there.", ignoringCase: false), .matches(.start, "hello", ignoringCase: true),
            .matches(.end, "?", ignoringCase: false), .containsAny(["Paris", "Rome"], ignoringCase: false),
            .containsAll(["a b", "c"], ignoringCase: true), .words(CountBound(lower: 2, upper: 40)),
            .sentences(CountBound(upper: 3)), .timeToFirstToken(CountBound(upper: 500)), .rate(CountBound(lower: 10)),
            .sameAsRecorded,
        ])
        #expect(checks.map(\.check.measuresSpeed) == [false, false, false, false, false, false, false, true, true, false])
        #expect(checks.last?.negated == true)
        #expect(checks[2].negated)
        #expect(try ConversationScript(parsing: script.printed()).items == script.items)
        // Bare words are read one by one.
        let bare = try ConversationScript(parsing: "user: Hi\nexpect: contains-all Paris Rome\n")
        #expect(bare.items.last == .expectation(TideScript.Expectation(.containsAll(["Paris", "Rome"], ignoringCase: false))))
    }
}
