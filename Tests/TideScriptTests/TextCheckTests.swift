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
            .init(.equals, .text("Hello there.")), .init(.istartsWith, .text("hello")),
            .init(.endsWith, .text("?")), .init(.containsAny, .texts(["Paris", "Rome"])),
            .init(.icontainsAll, .texts(["a b", "c"])), .init(.words, .count(CountBound(lower: 2, upper: 40))),
            .init(.sentences, .count(CountBound(upper: 3))), .init(.timeToFirstToken, .count(CountBound(upper: 500))),
            .init(.rate, .count(CountBound(lower: 10))),
            .init(.sameAsRecorded),
        ])
        #expect(checks.map { $0.check.kind.needs.contains(.speed) } == [false, false, false, false, false, false, false, true, true, false])
        #expect(checks.last?.negated == true)
        #expect(checks[2].negated)
        #expect(try ConversationScript(parsing: script.printed()).items == script.items)
        // Bare words are read one by one.
        let bare = try ConversationScript(parsing: "user: Hi\nexpect: contains-all Paris Rome\n")
        #expect(bare.items.last == .expectation(TideScript.Expectation(.init(.containsAll, .texts(["Paris", "Rome"])))))
    }
}
