import TideCore
import TideFormat

/// A reply in the Messages API's terms: the whole message (``message(id:model:summary:)``), and
/// its pieces as one stream sends them (``MessagesStream``).
public enum MessagesReply {
    /// The whole reply `summary` as message `id` of `model`: a `thinking` block for the reasoning,
    /// a `text` block for the answer (none when the reply is only calls), a `tool_use` block a
    /// call, the stop reason and the usage.
    public static func message(id: String, model: String, summary: ReplySummary) -> JSONValue {
        var content: [JSONValue] = []
        if !summary.reasoning.isEmpty {
            content.append(.fields(["type": .string("thinking"), "thinking": .string(summary.reasoning), "signature": .string("")]))
        }
        if !summary.text.isEmpty || summary.toolCalls.isEmpty {
            content.append(.fields(["type": .string("text"), "text": .string(summary.text)]))
        }
        content += summary.toolCalls.map(toolUse)
        let (reason, sequence) = stopReason(summary)
        return .fields([
            "id": .string(id), "type": .string("message"), "role": .string("assistant"), "model": .string(model),
            "content": .array(content), "stop_reason": .string(reason), "stop_sequence": sequence.map(JSONValue.string) ?? .null,
            "usage": usage(summary.statistics),
        ])
    }

    /// `call` as a `tool_use` block, its arguments as the `input` object.
    static func toolUse(_ call: ToolCall) -> JSONValue {
        .fields(["type": .string("tool_use"), "id": .string(call.id), "name": .string(call.name), "input": input(of: call)])
    }

    /// A call's arguments as an object (they are one: the grammar wrote them, or the request sent them).
    static func input(of call: ToolCall) -> JSONValue {
        (try? JSONValue(parsing: call.arguments)) ?? .fields([:])
    }

    /// The stop reason and the stop sequence met: `tool_use` when the reply calls the client's
    /// tools, `max_tokens` when a limit cut it, `stop_sequence` with the sequence, else `end_turn`.
    public static func stopReason(_ summary: ReplySummary) -> (reason: String, sequence: String?) {
        if !summary.toolCalls.isEmpty { return ("tool_use", nil) }
        return switch summary.stopReason {
        case .maxTokens, .contextFull: ("max_tokens", nil)
        case .stopString(let sequence): ("stop_sequence", sequence)
        default: ("end_turn", nil)
        }
    }

    /// The usage: the prompt's tokens read from the cache apart from those evaluated, and the
    /// reply's tokens.
    static func usage(_ statistics: GenerationStatistics) -> JSONValue {
        .fields([
            "input_tokens": .number(Double(statistics.evaluatedPromptTokens)),
            "cache_creation_input_tokens": .number(0),
            "cache_read_input_tokens": .number(Double(statistics.reusedPromptTokens)),
            "output_tokens": .number(Double(statistics.generatedTokens)),
        ])
    }
}

/// One reply's stream of server-sent events, as Anthropic's clients parse it: `message_start`
/// (then `ping`), for each block `content_block_start`, its deltas (`thinking_delta` then a
/// `signature_delta`, `text_delta`, `input_json_delta`) and `content_block_stop`, then
/// `message_delta` with the stop reason and the usage, and `message_stop`.
public struct MessagesStream: Sendable {
    /// An event to send: its name and its data.
    public typealias Event = (name: String, data: JSONValue)

    let id: String
    let model: String
    /// The open block's kind (`text`, `thinking`, `tool_use`) and the number of blocks started.
    private var open: String?
    private var blocks = 0
    /// The calls streamed as they were written, by their number in the reply: whole (their block
    /// closed) or not.
    private var streamedCalls: [Int: Bool] = [:]
    /// Whether a call could not be streamed as written: the rest come whole with the end.
    private var callsWhole = false

    /// The stream of message `id` of `model`.
    public init(id: String, model: String) {
        self.id = id
        self.model = model
    }

    /// The events that start the message.
    public func start() -> [Event] {
        let message: JSONValue = .fields([
            "id": .string(id), "type": .string("message"), "role": .string("assistant"), "model": .string(model),
            "content": .array([]), "stop_reason": .null, "stop_sequence": .null, "usage": MessagesReply.usage(GenerationStatistics()),
        ])
        return [("message_start", .fields(["type": .string("message_start"), "message": message])),
                ("ping", .fields(["type": .string("ping")]))]
    }

    /// The events for more of the answer (`text`) or of the reasoning (`thinking`).
    public mutating func add(_ text: String, as kind: Kind) -> [Event] {
        guard !text.isEmpty else { return [] }
        var events: [Event] = []
        if open != kind.rawValue {
            events += close()
            let block: JSONValue = kind == .text ? .fields(["type": .string("text"), "text": .string("")])
                : .fields(["type": .string("thinking"), "thinking": .string(""), "signature": .string("")])
            events.append(("content_block_start", .fields(["type": .string("content_block_start"), "index": .number(Double(blocks)),
                                                           "content_block": block])))
            open = kind.rawValue
        }
        let piece: JSONValue = kind == .text ? .fields(["type": .string("text_delta"), "text": .string(text)])
            : .fields(["type": .string("thinking_delta"), "thinking": .string(text)])
        events.append(delta(piece))
        return events
    }

    /// The kinds of text a block holds.
    public enum Kind: String, Sendable {
        case text, thinking
    }

    /// The events for what a call's text, as the model writes it, made known
    /// (TideFormat's `ToolCallStream`): a `tool_use` block started once the call's name is
    /// whole (with a fresh id), its input as `input_json_delta` pieces as they come, the block
    /// closed when the input is whole. A call whose input cannot be streamed gets it whole at
    /// the end, and so do the calls after it.
    public mutating func call(_ event: ToolCallStream.Event) -> [Event] {
        guard !callsWhole else { return [] }
        switch event {
        case .started(let index, let name):
            var events = close()
            events.append(("content_block_start", .fields([
                "type": .string("content_block_start"), "index": .number(Double(blocks)),
                "content_block": .fields(["type": .string("tool_use"), "id": .string(ToolCall.freshID("toolu")), "name": .string(name),
                                          "input": .fields([:])]),
            ])))
            open = "tool_use"
            streamedCalls[index] = false
            return events
        case .arguments(let index, let text) where streamedCalls[index] == false:
            return [delta(.fields(["type": .string("input_json_delta"), "partial_json": .string(text)]))]
        case .ended(let index) where streamedCalls[index] == false:
            streamedCalls[index] = true
            return close()
        case .skipped:
            callsWhole = true
            return []
        default: return []
        }
    }

    /// The events that end the message `summary` ends: the open block closed (a call's whole
    /// input first, when it could not be streamed), a block each call not streamed yet (its input
    /// as one `input_json_delta`), the stop reason and the usage.
    public mutating func finish(_ summary: ReplySummary) -> [Event] {
        var events: [Event] = []
        for (index, call) in summary.toolCalls.enumerated() where streamedCalls[index] == false {
            events.append(delta(.fields(["type": .string("input_json_delta"), "partial_json": .string(MessagesReply.input(of: call).text)])))
        }
        events += close()
        for (index, call) in summary.toolCalls.enumerated() where streamedCalls[index] == nil {
            events.append(("content_block_start", .fields([
                "type": .string("content_block_start"), "index": .number(Double(blocks)),
                "content_block": .fields(["type": .string("tool_use"), "id": .string(call.id), "name": .string(call.name),
                                          "input": .fields([:])]),
            ])))
            events.append(delta(.fields(["type": .string("input_json_delta"), "partial_json": .string(MessagesReply.input(of: call).text)])))
            open = "tool_use"
            events += close()
        }
        let (reason, sequence) = MessagesReply.stopReason(summary)
        events.append(("message_delta", .fields([
            "type": .string("message_delta"),
            "delta": .fields(["stop_reason": .string(reason), "stop_sequence": sequence.map(JSONValue.string) ?? .null]),
            "usage": MessagesReply.usage(summary.statistics),
        ])))
        events.append(("message_stop", .fields(["type": .string("message_stop")])))
        return events
    }

    /// The event that ends a stream that failed partway, of Anthropic's error `type`.
    public static func error(_ message: String, type: String = "api_error") -> Event {
        ("error", .fields(["type": .string("error"), "error": .fields(["type": .string(type), "message": .string(message)])]))
    }

    private func delta(_ delta: JSONValue) -> Event {
        ("content_block_delta", .fields(["type": .string("content_block_delta"), "index": .number(Double(blocks)), "delta": delta]))
    }

    /// Closes the open block, a thinking block after its (empty) signature.
    private mutating func close() -> [Event] {
        guard let kind = open else { return [] }
        var events: [Event] = []
        if kind == Kind.thinking.rawValue { events.append(delta(.fields(["type": .string("signature_delta"), "signature": .string("")]))) }
        events.append(("content_block_stop", .fields(["type": .string("content_block_stop"), "index": .number(Double(blocks))])))
        open = nil
        blocks += 1
        return events
    }
}
