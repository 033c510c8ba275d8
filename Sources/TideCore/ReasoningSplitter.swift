/// The tags a thinking model writes its reasoning between (`<think>` and `</think>` for Qwen 3 and
/// DeepSeek R1), and whether its prompt opens the block itself (DeepSeek
/// R1's template ends the prompt with `<think>\n`, so the reply starts inside it).
public struct ReasoningMarkers: Sendable, Hashable {
    /// The tag that opens the reasoning.
    public var open: String
    /// The tag that closes it; the answer follows.
    public var close: String
    /// Whether the prompt ends inside the block already.
    public var openedByPrompt: Bool

    /// Markers.
    public init(open: String = "<think>", close: String = "</think>", openedByPrompt: Bool = false) {
        self.open = open
        self.close = close
        self.openedByPrompt = openedByPrompt
    }
}

extension String {
    /// The text without the line breaks at its ends (Python's `strip('\n')`, which the chat
    /// templates use on reasoning).
    public var trimmingLineBreaks: String {
        String(drop { $0 == "\n" }.reversed().drop { $0 == "\n" }.reversed())
    }
}

/// Splits a reply's text, as it streams, into its reasoning block and its answer: a reply that
/// begins (after blank space) with the open tag reasons until the close tag; the line breaks
/// after the close tag are left out of the answer, as the templates leave them out. Text that
/// might be the start of a tag is held until it is known.
struct ReasoningSplitter {
    enum Phase { case opening, reasoning, answering }

    let markers: ReasoningMarkers
    private(set) var phase: Phase
    /// Text held while it may be (part of) a tag.
    private var held = ""
    /// The reasoning so far, tags left out.
    private(set) var reasoning = ""
    /// Whether the answer has begun: line breaks before it are dropped.
    private var answered = false

    init(markers: ReasoningMarkers) {
        self.markers = markers
        phase = markers.openedByPrompt ? .reasoning : .opening
    }

    /// Whether the answer has begun: the rest of the reply is answer as it comes.
    var isDone: Bool { phase == .answering && answered }

    /// Takes the next piece of the reply: what of it is reasoning, and what is answer.
    mutating func append(_ text: String) -> (reasoning: String, answer: String) {
        switch phase {
        case .answering:
            return ("", answerText(text))
        case .opening:
            held += text
            let start = held.drop { $0 == " " || $0 == "\n" }
            if start.isEmpty || (markers.open.hasPrefix(start) && start.count < markers.open.count) { return ("", "") }
            guard start.hasPrefix(markers.open) else {
                // No reasoning: the reply is answer from its first byte, line breaks included.
                phase = .answering
                answered = true
                defer { held = "" }
                return ("", held)
            }
            phase = .reasoning
            let rest = String(start.dropFirst(markers.open.count))
            held = ""
            return append(rest)
        case .reasoning:
            held += text
            if let close = held.firstRange(of: markers.close) {
                let thought = String(held[..<close.lowerBound])
                let rest = String(held[close.upperBound...])
                held = ""
                phase = .answering
                reasoning += thought
                return (thought, answerText(rest))
            }
            // Keep back the longest end that could begin the close tag.
            let keep = (1..<markers.close.count).reversed().first { held.hasSuffix(markers.close.prefix($0)) } ?? 0
            let released = String(held.dropLast(keep))
            held = String(held.suffix(keep))
            reasoning += released
            return (released, "")
        }
    }

    /// The reply ended: text still held is given where it stood (a tag begun but never finished
    /// is text).
    mutating func finish() -> (reasoning: String, answer: String) {
        defer { held = "" }
        switch phase {
        case .opening: phase = .answering; return ("", held)
        case .reasoning: reasoning += held; return (held, "")
        case .answering: return ("", "")
        }
    }

    /// The reasoning without the line breaks around it, as templates write it back.
    var trimmedReasoning: String { reasoning.trimmingLineBreaks }

    private mutating func answerText(_ text: String) -> String {
        guard !answered else { return text }
        let rest = text.drop { $0 == "\n" }
        if rest.isEmpty { return "" }
        answered = true
        return String(rest)
    }
}
