import Testing
@testable import TideCore

/// The pieces `ReplyLoop` composes, each on its own: the text held back for stop strings, the
/// tool calls captured from their marker, a thinking model's reasoning and its budget, and the
/// check of a hook's rewind against the ledger.
@Suite struct ReplyPiecesTests {
    @Test func heldTextAssemblesCharactersAndHoldsWhatMayStartAStop() {
        var text = HeldText(stops: ["STOP"])
        let e = Array("é".utf8)
        #expect(text.characters([e[0]]).isEmpty, "half a character waits")
        #expect(text.characters([e[1]]) == "é")
        let match = text.answer("a ST")
        #expect(match.released == "a " && match.stop == nil && text.held == "ST")
        let snapshot = text
        #expect(text.answer("OP and more").stop == "STOP")
        text = snapshot
        #expect(text.flush() == "ST", "a value: put back, it holds what it held")
    }

    @Test func toolCallsAreCapturedFromTheirMarkerAndACutMarkerIsACall() {
        var capture = ToolCallCapture(marker: "<tool_call>")
        #expect(capture.shown("plain tail") == "plain tail" && !capture.isCapturing)
        #expect(capture.shown("<tool") == "" && capture.text == "<tool", "the start of a call, cut short, is never shown")
        var begun = ToolCallCapture(marker: "<tool_call>")
        begun.begin(following: "\n{\"name\"")
        begun.append(": \"x\"}")
        #expect(begun.isCapturing && begun.text == "<tool_call>\n{\"name\": \"x\"}")
        let none = ToolCallCapture(marker: nil)
        #expect(none.read(with: nil, endedBy: .endOfGeneration) == nil)
    }

    /// Spelled one character a token, so the close tag's tokens are certain.
    struct Letters: Vocabulary {
        var vocabularySize: Int { 256 }
        func tokens(of text: String) -> [Int32] { text.utf8.map { Int32($0) } }
        func text(of tokens: [Int32]) -> String { String(decoding: tokens.map { UInt8($0) }, as: UTF8.self) }
        func tokenText(_ token: Int32) -> String { text(of: [token]) }
    }

    @Test func reasoningIsSplitCountedAndClosedWhenItsBudgetIsSpent() {
        var phase = ReasoningPhase(markers: ReasoningMarkers(openedByPrompt: true), budget: 2)
        let letters = Letters()
        #expect(phase.forcedToken(vocabulary: letters) == nil)
        _ = phase.take(1, text: "so", forced: nil)
        _ = phase.take(2, text: "me", forced: nil)
        #expect(phase.tokens == 2)
        var forced = phase.forcedToken(vocabulary: letters)
        #expect(forced == Int32(UInt8(ascii: "\n")), "the budget is spent: the close tag comes next")
        var answer = ""
        while let token = forced {
            answer += phase.take(token, text: letters.tokenText(token), forced: token).answer
            forced = phase.forcedToken(vocabulary: letters)
        }
        #expect(answer.isEmpty && phase.trimmedReasoning == "some", "\(phase.reasoning)")
        #expect(phase.take(3, text: "Hi", forced: nil).answer == "Hi")
        #expect(!phase.isActive, "the answer has begun")
    }

    @Test func aRewindIsCheckedAgainstTheWindowAndWhatTheLedgerHolds() throws {
        var ledger = RewindLedger(window: 8)
        ledger.record(RewindLedger.Entry(index: 0, id: 1, textStart: 0, rawLength: 0, text: HeldText(stops: [])))
        ledger.record(RewindLedger.Entry(index: 1, id: 2, textStart: 4, rawLength: 4, text: HeldText(stops: [])))
        func target(_ offset: Int) -> Result<Int, RewindMisuse> {
            ledger.target(of: Rewind(offset: offset), window: 8, textLength: 10).map(\.index)
        }
        #expect(try target(5).get() == 1)
        #expect(throws: RewindMisuse.self) { try target(-1).get() }
        #expect(throws: RewindMisuse.self) { try target(10).get() }
        #expect(throws: RewindMisuse.self) { try target(1).get() }
        #expect(Rewind(offset: 0, banFirstToken: true, bannedTokens: [7]).banned(first: 3) == [3, 7])
    }
}
