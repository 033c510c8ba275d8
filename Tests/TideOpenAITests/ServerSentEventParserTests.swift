import Testing
import TideOpenAI

@Suite struct ServerSentEventParserTests {
    let stream = "data: {\"a\":1}\n\n: a comment\nevent: note\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n"

    @Test func readsEventsWholeAndInEveryCut() throws {
        let expected = [
            ServerSentEvent(name: "message", data: "{\"a\":1}"),
            ServerSentEvent(name: "note", data: "line one\nline two"),
            ServerSentEvent(name: "message", data: "[DONE]"),
        ]
        var whole = ServerSentEventParser()
        #expect(try whole.feed(Array(stream.utf8)) == expected)
        let bytes = Array(stream.utf8)
        for cut in 0...bytes.count {
            var parser = ServerSentEventParser()
            #expect(try parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...]) == expected, "cut at \(cut)")
        }
    }

    @Test func acceptsEveryLineEnding() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.feed(Array("data:a\r\n\r\ndata: b\r\rdata:c\n\n".utf8)).map(\.data) == ["a", "b", "c"])
    }

    @Test func anEventWithoutAnEndIsNotDelivered() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.feed(Array("data: half".utf8)).isEmpty)
        #expect(try parser.feed(Array("\n\n".utf8)).map(\.data) == ["half"])
    }

    @Test func encodedEventsParseBack() throws {
        var parser = ServerSentEventParser()
        let bytes = ServerSentEvent.encoded(data: Array(#"{"a":1}"#.utf8)) + ServerSentEvent.done
        #expect(String(decoding: bytes, as: UTF8.self) == "data: {\"a\":1}\n\ndata: [DONE]\n\n")
        #expect(try parser.feed(bytes) == [ServerSentEvent(name: "message", data: #"{"a":1}"#),
                                       ServerSentEvent(name: "message", data: ServerSentEvent.doneMarker)])
    }

    @Test func anEventThatNeverEndsIsRefused() throws {
        var parser = ServerSentEventParser()
        let megabyte = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        _ = try parser.feed(Array("data: ".utf8))
        #expect(throws: ServerSentEventTooLarge()) {
            for _ in 0...16 { _ = try parser.feed(megabyte) }
        }
    }
}
