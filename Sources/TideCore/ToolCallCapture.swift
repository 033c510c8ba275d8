/// A reply's tool calls as its model writes them (``ToolCallReader``): the format's marker ends
/// the text shown, and from there on the reply is the calls — captured, never shown, and read once
/// the reply has ended.
struct ToolCallCapture {
    /// The text that opens the calls; `nil` when no tools are offered, or when the backend reads
    /// the calls itself.
    let marker: String?
    /// The calls as written, from the marker on; `nil` before it.
    private(set) var text: String?

    init(marker: String?) {
        self.marker = marker
    }

    /// Whether the calls have begun: the rest of the reply is theirs.
    var isCapturing: Bool { text != nil }

    /// The marker was found, with `following` after it: the calls begin.
    mutating func begin(following: String) {
        text = (marker ?? "") + following
    }

    /// More of the calls.
    mutating func append(_ piece: String) {
        text! += piece
    }

    /// What of `tail`, the text held back at the reply's end, is shown: all of it, unless it is the
    /// start of the marker — a call cut short, kept as the calls (to be reported), never shown.
    mutating func shown(_ tail: String) -> String {
        guard let marker, !tail.isEmpty, marker.hasPrefix(tail) else { return tail }
        text = tail
        return ""
    }

    /// The calls `reader` reads in the captured text, or why it cannot: a reply that ended
    /// (`reason`) at `max-tokens` inside a call says so. `nil` when there were no calls.
    func read(with reader: (any ToolCallReader)?, endedBy reason: StopReason) -> Result<[ToolCall], ToolCallProblem>? {
        guard let text, let reader else { return nil }
        do {
            return .success(try reader.calls(in: text))
        } catch {
            return .failure(ToolCallProblem(reason == .maxTokens ? "the reply ended (max-tokens) inside a tool call" : error.description))
        }
    }
}

/// Why a reply's tool calls could not be read, in words for the summary.
struct ToolCallProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
