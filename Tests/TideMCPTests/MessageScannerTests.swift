import Foundation
import Testing
@testable import TideMCP

/// The scanner that splits a server's output into messages: a string cut where it is kept no
/// longer stays valid JSON (a whole character, a whole escape, a whole surrogate pair) and its
/// whole length is told, however the output is split into reads; nesting is counted as it
/// arrives; ids and blank lines are read as a JSON-RPC reader reads them.
struct MessageScannerTests {
    static let limit = MessageScanner.keptLimit

    /// Messages whose one long string holds, where the limit falls, a character of 2, 3 or 4 bytes,
    /// an escape, or a surrogate pair written as escapes: the string as written, and as read.
    static let strings: [(written: String, read: String)] = [
        (String(repeating: "x", count: limit - 1) + String(repeating: "€", count: 10), String(repeating: "x", count: limit - 1) + String(repeating: "€", count: 10)),
        (String(repeating: "x", count: limit - 2) + String(repeating: "😀é", count: 10), String(repeating: "x", count: limit - 2) + String(repeating: "😀é", count: 10)),
        (String(repeating: "x", count: limit - 3) + String(repeating: #"\u00e9\n\""#, count: 10), String(repeating: "x", count: limit - 3) + String(repeating: "é\n\"", count: 10)),
        (String(repeating: "x", count: limit - 8) + String(repeating: #"\ud83d\ude00"#, count: 10), String(repeating: "x", count: limit - 8) + String(repeating: "😀", count: 10)),
    ]

    /// The messages of `text` read `size` bytes at a time, or in reads that end at `ends`.
    func scan(_ text: String, inReadsOf size: Int = .max, endingAt ends: [Int] = []) throws -> [MessageScanner.Message] {
        var scanner = MessageScanner()
        var messages: [MessageScanner.Message] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, ends.first { $0 > start } ?? (start + min(size, bytes.count)))
            messages += try bytes[start..<end].withUnsafeBytes { try scanner.read($0) }
            start = end
        }
        return messages
    }

    @Test(arguments: [4093, 65_536, 1_000_003])
    func aLongStringIsCutAtAWholeCharacterAndItsLengthTold(readSize: Int) throws {
        for (index, string) in Self.strings.enumerated() {
            let line = #"{"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "\#(string.written)"}], "#
                + #""structuredContent": {"result": "\#(string.written)"}}}"# + "\r\n"
            let messages = try scan(line + "  \n", inReadsOf: readSize)
            try #require(messages.count == 1, "case \(index)")
            let message = messages[0]
            #expect(message.id == "7")
            let object = try #require(try JSONSerialization.jsonObject(with: message.data) as? [String: Any], "case \(index)")
            let result = object["result"] as? [String: Any]
            let text = try #require(((result?["content"] as? [[String: Any]])?.first?["text"]) as? String)
            #expect(string.read.hasPrefix(text) && text.utf8.count <= Self.limit && text.utf8.count > Self.limit - 12, "case \(index)")
            // The structured copy is cut too, but it is not content the model reads: only the text is told.
            #expect(((result?["structuredContent"] as? [String: Any])?["result"] as? String).map { string.read.hasPrefix($0) } == true)
            #expect(message.cuts == [MessageScanner.ContentCut(part: 0, bytes: string.read.utf8.count, kept: text.utf8.count)], "case \(index)")
        }
    }

    /// The limit falls in a character whose first byte came in the read before.
    @Test func aCharacterSplitBetweenReadsIsNotKeptHalf() throws {
        let head = #"{"id": 1, "result": {"content": [{"type": "text", "text": ""#
        let line = head + String(repeating: "x", count: Self.limit - 1) + "€€" + #""}]}}"# + "\n"
        let messages = try scan(line, endingAt: [head.utf8.count + Self.limit])
        let message = try #require(messages.first)
        let object = try #require(try JSONSerialization.jsonObject(with: message.data) as? [String: Any])
        let text = (((object["result"] as? [String: Any])?["content"] as? [[String: Any]])?.first?["text"]) as? String
        #expect(text == String(repeating: "x", count: Self.limit - 1))
        #expect(message.cuts == [MessageScanner.ContentCut(part: 0, bytes: Self.limit + 5, kept: Self.limit - 1)])
    }

    @Test func nestingPastTheLimitFailsAsSoonAsItDoes() throws {
        let deepest = MessageScanner.nestingLimit
        let messages = try scan(String(repeating: "[", count: deepest) + String(repeating: "]", count: deepest) + "\n", inReadsOf: 100)
        #expect(messages.count == 1)
        // No line end is needed: the scanner stops at the bracket too many.
        #expect(throws: MessageScanner.Failure.tooDeep) {
            try scan(#"{"id": 1, "result": "# + String(repeating: "[", count: deepest), inReadsOf: 100)
        }
    }

    @Test func idsAndLinesAreReadAsAReaderReadsThem() throws {
        let messages = try scan(#"{"jsonrpc": "2.0", "id": "a-1", "method": "x"}"# + "\n\t \n" + #"{"result": {"id": 5}, "id": -12}"# + "\n"
                                + #"{"params": ["id", 3]}"# + "\n", inReadsOf: 5)
        #expect(messages.map(\.id) == ["a-1", "-12", nil])
        #expect(messages.allSatisfy { $0.cuts.isEmpty })
    }
}
