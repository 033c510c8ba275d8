import Testing
import TideScript

/// Lines found by fuzzing to take minutes: parsing was quadratic in the number of quoted strings
/// on one line (each string's end was found by counting the rest of the line), and in the length
/// of a line whose invalid UTF-8 came last. Both are linear now; the time limit is a hang guard,
/// far above what the work takes.
@Suite(.timeLimit(.minutes(1)))
struct LongLineTests {
    static let count = 100_000
    static let strings = (0..<count).map { "\"s\($0)\"" }.joined(separator: " ")

    /// The line is read whole, and then refused past the bound on stop strings (64), the value
    /// named by its start and its length.
    @Test func aHundredThousandStopStringsOnOneLine() throws {
        #expect {
            _ = try ConversationScript(parsing: "@stop \(Self.strings)\nuser: Hi\n")
        } throws: { error in
            let message = "\(error)"
            return message.contains("@stop must be a list of non-empty strings, at most 64 of them")
                && message.contains("…' (\(Self.strings.count) characters)")
        }
        let allowed = (0..<64).map { "\"s\($0)\"" }.joined(separator: " ")
        let script = try ConversationScript(parsing: "@stop \(allowed)\nuser: Hi\n")
        guard case .directive(.parameter(let setting), line: 1)? = script.steps.first, case .list(let values) = setting.value else {
            Issue.record("no @stop in \(script.steps.prefix(1))")
            return
        }
        #expect(values.count == 64 && values.last == .text("s63"))
    }

    @Test func aHundredThousandTextsInOneCheck() throws {
        let script = try ConversationScript(parsing: "user: Hi\nexpect: contains-any \(Self.strings)\n")
        #expect(script.entries.count == 2)
    }

    @Test func theColumnOfAnErrorAfterAHundredThousandStrings() {
        #expect {
            try ConversationScript(parsing: "user: Hi\nexpect: contains-any \(Self.strings) \"open\n")
        } throws: { error in
            guard let error = error as? ScriptParseError else { return false }
            return error.line == 2 && error.column == "expect: contains-any \(Self.strings) ".count + 1
                && error.message.contains("no closing quote")
        }
    }

    @Test func invalidUTF8AtTheEndOfAMegabyteLine() {
        let bytes = Array("user: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 1 << 20)
            + Array("é".utf8) + [0xFF] + Array("\n".utf8)
        do {
            _ = try ConversationScript(bytes: bytes)
            Issue.record("invalid UTF-8 parsed")
        } catch {
            // Columns count characters: "user: ", the a's, then "é" (two bytes, one column).
            #expect(error.line == 1 && error.column == 6 + (1 << 20) + 1 + 1)
        }
    }
}
