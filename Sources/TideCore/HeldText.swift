/// A reply's text on its way out: its tokens' bytes assembled into whole characters
/// (``UTF8Assembler``), and its answer held back while it may be the start of a stop string
/// (``StopStringMatcher``). A value, so that a rewind puts it back as it was before a token.
struct HeldText {
    private var assembler = UTF8Assembler()
    private var matcher: StopStringMatcher

    /// Text that ends the reply where it appears: the stop strings, the end-of-generation strings,
    /// a tool call's marker.
    init(stops: [String]) {
        matcher = StopStringMatcher(stops)
    }

    /// The whole characters `bytes` complete (a character may take several tokens).
    mutating func characters(_ bytes: [UInt8]) -> String { assembler.append(bytes) }

    /// Passes answer text through the stop strings: what is released, and the stop string found.
    mutating func answer(_ text: String) -> StopStringMatcher.Match { matcher.append(text) }

    /// The answer held back: it may be the start of a stop string.
    var held: String { matcher.heldText }

    /// The characters cut short at the reply's end (invalid bytes replaced).
    mutating func finishCharacters() -> String { assembler.finish() }

    /// Everything held back, as text: the reply ends here.
    mutating func flush() -> String { matcher.flush() + assembler.finish() }

    /// `ending`, the last of the answer, with everything it and the earlier text left held.
    mutating func release(ending: String) -> String { matcher.append(ending).released + matcher.flush() }
}
