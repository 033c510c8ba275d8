import Foundation
import Testing
import TideLua
@testable import TideRunner
@testable import TideScript

/// The kinds of check are declared once (``CheckKind/all``): every one is evaluated, documented,
/// read and printed back, and its named file found, from that one declaration.
@Suite struct CheckKindTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everyKindHasAnEvaluatorAndNoEvaluatorLacksAKind() {
        #expect(Set(ExpectationChecker.evaluators.keys) == Set(CheckKind.all))
        #expect(Set(CheckKind.all.map(\.name)).count == CheckKind.all.count, "names are unique")
    }

    @Test func everyKindIsDocumented() throws {
        let docs = try String(contentsOf: Self.repository.appendingPathComponent("docs/conversations.md"), encoding: .utf8)
        for kind in CheckKind.all {
            let written = kind == .lua ? "`expect-lua:" : "`expect: \(kind.name)"
            #expect(docs.contains(written) || docs.contains("`\(kind.name)`"), "docs/conversations.md describes \(kind.name)")
        }
    }

    /// A check of each kind, with an argument of its form, prints as a script line that reads
    /// back as the same check, negated or not.
    @Test func everyKindPrintsAndReadsBack() throws {
        for kind in CheckKind.all {
            let argument: CheckArgument = switch kind.form {
            case .none: .none
            case .text, .word, .luaExpression: .text(kind == .toolCall ? "add" : kind == .lua ? "#reply > 0" : "a \"b\" c")
            case .schemaFile: .text("schemas/my schema.json")
            case .schema: .text(#"{"type": "object"}"#)
            case .texts: .texts(["a b", "c"])
            case .count: .count(CountBound(lower: 2, upper: 9))
            case .measure: .measure(MeasureBound(lower: -2.5, excludingLower: true))
            case .similarity: .measure(MeasureBound(lower: 0.5))
            case .textAndSimilarity: .textAndMeasure("Paris", MeasureBound(upper: 0.8))
            }
            for negated in kind == .lua ? [false] : [false, true] {
                let expectation = Expectation(.init(kind, argument), negated: negated)
                let script = ConversationScript(entries: [ScriptEntry(.turn(Turn(.user, "Hi")), line: 1),
                                                          ScriptEntry(.expectation(expectation), line: 2)])
                let read = try ConversationScript(parsing: script.printed())
                #expect(read.items.last == .expectation(expectation), "\(script.printed())")
            }
        }
    }

    /// A check evaluated on a reply: each kind through the table, with `not`, and one whose
    /// argument cannot be decided failing either way.
    @Test func checksAreEvaluatedByKind() {
        let checker = ExpectationChecker(limits: LuaLimits(), regexBudget: RegexBudget())
        let reply = ExpectationChecker.Reply(text: "  Paris is in France.  ", tokens: 6, stopReason: "stop-string: .", user: "Where?")
        func passes(_ kind: CheckKind, _ argument: CheckArgument = .none, negated: Bool = false) -> Bool {
            checker.check(LocatedExpectation(expectation: Expectation(.init(kind, argument), negated: negated), line: 1), on: reply).passed
        }
        #expect(passes(.icontains, .text("paris")) && !passes(.contains, .text("paris")))
        #expect(passes(.equals, .text("Paris is in France.")) && passes(.iendsWith, .text("FRANCE.")))
        #expect(passes(.icontainsAll, .texts(["PARIS", "france"])) && !passes(.containsAny, .texts(["Rome"])))
        #expect(passes(.words, .count(CountBound(upper: 4))) && passes(.sentences, .count(CountBound(lower: 1, upper: 1))))
        #expect(passes(.stop, .text("stop-string")) && !passes(.stop, .text("stop")))
        #expect(passes(.regex, .text(#"\bin\b"#)) && passes(.lua, .text("tokens == 6")))
        #expect(!passes(.json) && passes(.json, negated: true))
        // No recording to compare with: undecided, so it fails with `not` too.
        #expect(!passes(.sameAsRecorded) && !passes(.sameAsRecorded, negated: true))
    }
}
