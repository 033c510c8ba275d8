import Testing
import TideFormat

/// A reply's calls read as the model writes them, in each format's wrapping, a character at a
/// time or in larger pieces: the same calls started, the same arguments streamed.
@Suite struct ToolCallStreamTests {
    func events(_ text: String, pieceLength: Int) -> [ToolCallStream.Event] {
        var stream = ToolCallStream()
        var events: [ToolCallStream.Event] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            events += stream.read(String(rest.prefix(pieceLength)))
            rest = rest.dropFirst(pieceLength)
        }
        // Argument pieces joined, so that the split does not matter.
        return events.reduce(into: []) { joined, event in
            if case .arguments(let index, let text) = event, case .arguments(index, let before)? = joined.last {
                joined[joined.count - 1] = .arguments(index: index, text: before + text)
            } else {
                joined.append(event)
            }
        }
    }

    @Test(arguments: [
        #"<tool_call>{"name": "get_weather", "arguments": {"city": "Pa}ri\"s", "n": [1, {"x": 2}]}}</tool_call>"#,
        #"{"name": "get_weather", "parameters": {"city": "Pa}ri\"s", "n": [1, {"x": 2}]}}"#,
        #"[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Pa}ri\"s", "n": [1, {"x": 2}]}}]"#,
    ])
    func eachFormatsCallIsStartedAndItsArgumentsStreamed(text: String) {
        let expected: [ToolCallStream.Event] = [.started(index: 0, name: "get_weather"),
                                                .arguments(index: 0, text: #"{"city": "Pa}ri\"s", "n": [1, {"x": 2}]}"#), .ended(index: 0)]
        for length in [1, 3, 7, text.count] {
            #expect(events(text, pieceLength: length) == expected, "pieces of \(length)")
        }
    }

    @Test func twoCallsAndCallsThatCannotBeStreamed() {
        let two = #"functools[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"k": "v"}}]"#
        #expect(events(two, pieceLength: 2) == [.started(index: 0, name: "a"), .arguments(index: 0, text: "{}"), .ended(index: 0),
                                                .started(index: 1, name: "b"), .arguments(index: 1, text: #"{"k": "v"}"#), .ended(index: 1)])
        // Arguments before the name, or as a string, come with the whole call.
        #expect(events(#"{"arguments": {"k": 1}, "name": "a"}"#, pieceLength: 4) == [.skipped(index: 0), .started(index: 0, name: "a")])
        #expect(events(#"{"name": "a", "arguments": "{\"k\": 1}"}"#, pieceLength: 4) == [.started(index: 0, name: "a"), .skipped(index: 0)])
    }
}
