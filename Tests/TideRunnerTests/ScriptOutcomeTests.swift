import Foundation
import Testing
import TideCore
import TideLua
import TideProvider
@testable import TideRunner
import TideScript
import TideTestSupport

/// What the checks of a script come to over several runs (`tide run --repeat`): pass counts,
/// rates from `--min-pass` and `@min-pass`, and runs that end early.
@Suite struct ScriptOutcomeTests {
    /// A run whose expectations (at lines 10, 11, 12) held as `verdicts` says.
    func run(_ verdicts: [Bool], failure: String? = nil) -> ScriptResult {
        var result = ScriptResult(file: "s.tide", failure: failure)
        let expectations = verdicts.enumerated().map { index, passed in
            ExpectationResult(expectation: Expectation(.init(.contains, .text("x"))), line: 10 + index, passed: passed,
                              detail: passed ? "" : "missed \(index)")
        }
        result.replies = [ReplyResult(line: 9, user: "u", text: "reply \(verdicts)", stopReason: "eos",
                                      statistics: GenerationStatistics(), expectations: expectations, hookFailures: [])]
        return result
    }

    @Test func passCountsAndRates() {
        let rates = [PassRate.all, PassRate(parsing: "0.5")!, PassRate(parsing: "60%")!]
        let outcome = ScriptOutcome(runs: [run([true, true, false]), run([true, false, true]), run([true, false, true]),
                                           run([true, true, false])], rates: rates)
        #expect(outcome.checks.map(\.passes) == [4, 2, 2])
        #expect(outcome.checks.map(\.passed) == [true, true, false])
        #expect(outcome.passed == 2 && outcome.failed == 1)
        #expect(outcome.checks[2].detail == "missed 2")
        #expect(outcome.checks[2].reply == "reply [true, true, false]")
        #expect(outcome.runs == 4 && outcome.failure == nil)
    }

    @Test func aRunThatEndedEarlyFailsWhatItDidNotReach() {
        var short = run([true])
        short.failure = "s.tide:9: the context is full"
        let outcome = ScriptOutcome(runs: [run([true, true]), short], rates: [.all, PassRate(parsing: "0.5")!])
        #expect(outcome.checks.map(\.passes) == [2, 1])
        #expect(outcome.checks.map(\.passed) == [true, true])
        #expect(outcome.failure == "s.tide:9: the context is full")
    }

    @Test func oneRunIsTheResultItself() {
        let outcome = ScriptOutcome(run([true, false]))
        #expect(outcome.checks.map(\.passed) == [true, false])
        #expect(outcome.passed == 1 && outcome.failed == 1)
    }

    @Test func passRatesAreReadAndTheDirectiveAppliesFromWhereItStands() throws {
        #expect(PassRate(parsing: "0.8")?.fraction == 0.8)
        #expect(PassRate(parsing: "80%")?.fraction == 0.8)
        #expect(PassRate(parsing: "1.5") == nil && PassRate(parsing: "-1%") == nil && PassRate(parsing: "nan") == nil)
        #expect(PassRate(parsing: "0.75")?.isMet(passes: 3, runs: 4) == true)
        #expect(PassRate(parsing: "0.8")?.isMet(passes: 3, runs: 4) == false)
        let script = try ConversationScript(parsing: """
            user: a
            expect: contains "a"
            @min-pass 0.5
            user: b
            expect: contains "b"
            expect: contains "c"
            @min-pass 90%
            user: c
            expect: contains "d"

            """)
        #expect(script.minimumPassRates(default: PassRate(parsing: "0.7")!).map(\.fraction) == [0.7, 0.5, 0.5, 0.9])
        #expect(try ConversationScript(parsing: script.printed()).items == script.items)
        #expect(script.printed().contains("@min-pass 0.5\n") && script.printed().contains("@min-pass 0.9\n"))
        #expect(throws: ScriptParseError.self) { try ConversationScript(parsing: "@min-pass 2\nuser: a\n") }
    }
}
