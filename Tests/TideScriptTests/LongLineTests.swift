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

    @Test func aHundredThousandStopStringsOnOneLine() throws {
        let script = try ConversationScript(parsing: "@stop \(Self.strings)\nuser: Hi\n")
        guard case .directive(.parameter(let setting), line: 1)? = script.steps.first, setting.name == "stop",
              case .list(let values) = setting.value
        else {
            Issue.record("no @stop in \(script.steps.prefix(1))")
            return
        }
        let stops = values.compactMap { value -> String? in
            guard case .text(let text) = value else { return nil }
            return text
        }
        #expect(stops.count == Self.count)
        #expect(stops.last == "s\(Self.count - 1)")
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
