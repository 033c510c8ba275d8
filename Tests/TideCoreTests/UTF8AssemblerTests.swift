import Testing
@testable import TideCore

@Suite struct UTF8AssemblerTests {
    @Test func holdsASplitCharacterUntilItIsComplete() {
        var assembler = UTF8Assembler()
        let coffee = Array("☕".utf8)  // three bytes
        #expect(assembler.append([UInt8(ascii: "a")] + coffee.prefix(1)) == "a")
        #expect(assembler.heldByteCount == 1)
        #expect(assembler.append(coffee[1...1]) == "")
        #expect(assembler.append(coffee[2...]) == "☕")
        #expect(assembler.heldByteCount == 0)
    }

    @Test func fourByteCharacterOneByteAtATime() {
        var assembler = UTF8Assembler()
        let text = Array("é😀ü".utf8).map { assembler.append([$0]) }.joined()
        #expect(text == "é😀ü")
    }

    @Test func invalidBytesBecomeReplacementCharacters() {
        var assembler = UTF8Assembler()
        // A lone continuation byte, an impossible lead byte, an overlong 0xE0 0x80 start.
        #expect(assembler.append([0x80, 0x41]) == "\u{FFFD}A")
        #expect(assembler.append([0xFF]) == "\u{FFFD}")
        #expect(assembler.append([0xE0, 0x80]).unicodeScalars.allSatisfy { $0 == "\u{FFFD}" })
        #expect(assembler.heldByteCount == 0)
    }

    @Test func finishTurnsAnIncompleteCharacterIntoOneReplacement() {
        var assembler = UTF8Assembler()
        #expect(assembler.append(Array("ok".utf8) + [0xF0, 0x9F]) == "ok")
        #expect(assembler.finish() == "\u{FFFD}")
        #expect(assembler.finish() == "")
    }

    @Test(arguments: 1...7)
    func anyChunkingGivesTheSameText(chunkSize: Int) {
        let original = "Zürich ☕ naïve 😀 日本語 ok"
        let bytes = Array(original.utf8)
        var assembler = UTF8Assembler()
        var text = ""
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            text += assembler.append(bytes[start..<min(start + chunkSize, bytes.count)])
        }
        text += assembler.finish()
        #expect(text == original)
    }
}
