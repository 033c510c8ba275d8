import TideCore
import TideFormat

/// One response's stream of typed server-sent events, in the order OpenAI's stream helpers accept:
/// `response.created` and `response.in_progress`; for each output item, `response.output_item.added`,
/// its content (a reasoning item's `reasoning_text` and summary, a message's `output_text`, a
/// call's arguments: `added`, `delta`s, `done`) and `response.output_item.done`; then
/// `response.completed` (or `response.incomplete`) with the whole response. Every event carries its
/// `sequence_number`, from 0, and the items their `output_index`, in order; an item keeps its id
/// from its first event to the response.
public struct ResponsesStream: Sendable {
    /// An event to send: its type and its data.
    public typealias Event = (name: String, data: JSONValue)

    let reply: ResponsesReply
    private var sequence = 0
    /// The items done, as the response lists them.
    private var output: [JSONValue] = []
    /// The open item: its kind, id and text so far.
    private var open: (kind: Kind, id: String, text: String)?
    /// The call being streamed as it is written: its number in the reply, its item, its name and
    /// arguments so far.
    private var openCall: (index: Int, id: String, callID: String, name: String, arguments: String)?
    /// The ids of the calls streamed as they were written, by their number in the reply (the
    /// stored conversation must name them as the client saw them).
    public private(set) var streamedCallIDs: [Int: String] = [:]
    /// Whether a call could not be streamed as written: the rest come whole with the end.
    private var callsWhole = false

    /// The kinds of text an item holds.
    public enum Kind: Sendable {
        case text, reasoning
    }

    /// The stream of `reply`.
    public init(_ reply: ResponsesReply) {
        self.reply = reply
    }

    /// The events that start the response.
    public mutating func start() -> [Event] {
        let response = reply.response(status: "in_progress", output: [])
        return [event("response.created", ["response": response]), event("response.in_progress", ["response": response])]
    }

    /// The events for more of the answer or of the reasoning.
    public mutating func add(_ text: String, as kind: Kind) -> [Event] {
        guard !text.isEmpty else { return [] }
        var events = open?.kind == kind ? [] : begin(kind)
        guard let id = open?.id else { return events }
        open?.text += text
        events.append(kind == .text
            ? event("response.output_text.delta", ["item_id": .string(id), "output_index": index, "content_index": .number(0),
                                                   "delta": .string(text), "logprobs": .array([])])
            : event("response.reasoning_text.delta", ["item_id": .string(id), "output_index": index, "content_index": .number(0),
                                                      "delta": .string(text)]))
        return events
    }

    /// The events for what a call's text, as the model writes it, made known
    /// (TideFormat's `ToolCallStream`): a `function_call` item added once the call's name is
    /// whole (with fresh ids), its arguments as `response.function_call_arguments.delta` pieces
    /// as they come, the item done when they are whole. A call whose arguments cannot be streamed
    /// gets them whole at the end, and so do the calls after it.
    public mutating func call(_ piece: ToolCallStream.Event) -> [Event] {
        guard !callsWhole else { return [] }
        switch piece {
        case .started(let index, let name):
            var events = close()
            let id = ToolCall.freshID("fc"), callID = ToolCall.freshID("call")
            openCall = (index, id, callID, name, "")
            streamedCallIDs[index] = callID
            let call = ToolCall(id: callID, name: name, arguments: "")
            events.append(event("response.output_item.added", ["output_index": self.index, "item": reply.functionCallItem(id: id, call: call,
                                                                                                                   status: "in_progress")]))
            return events
        case .arguments(let index, let text) where openCall?.index == index:
            openCall?.arguments += text
            return [event("response.function_call_arguments.delta", ["item_id": .string(openCall!.id), "output_index": self.index,
                                                                     "delta": .string(text)])]
        case .ended(let index) where openCall?.index == index:
            return closeCall(arguments: nil)
        case .skipped:
            callsWhole = true
            return []
        default: return []
        }
    }

    /// Ends the call being streamed, with its `arguments` when they could not be streamed.
    private mutating func closeCall(arguments whole: String?) -> [Event] {
        guard let call = openCall else { return [] }
        openCall = nil
        var events: [Event] = []
        if let whole {
            events.append(event("response.function_call_arguments.delta", ["item_id": .string(call.id), "output_index": self.index,
                                                                           "delta": .string(whole)]))
        }
        let arguments = whole ?? call.arguments
        events.append(event("response.function_call_arguments.done", ["item_id": .string(call.id), "output_index": self.index,
                                                                      "arguments": .string(arguments)]))
        let item = reply.functionCallItem(id: call.id, call: ToolCall(id: call.callID, name: call.name, arguments: arguments),
                                          status: "completed")
        events.append(event("response.output_item.done", ["output_index": self.index, "item": item]))
        output.append(item)
        return events
    }

    /// The events that end the response `summary` ends: the open item done (a call's whole
    /// arguments first, when they could not be streamed), an item each call not streamed yet (its
    /// arguments as one delta), then the whole response.
    public mutating func finish(_ summary: ReplySummary) -> [Event] {
        let (status, incomplete) = ResponsesReply.status(summary)
        var events = openCall.map { open in
            closeCall(arguments: summary.toolCalls.indices.contains(open.index) && open.arguments.isEmpty
                          ? summary.toolCalls[open.index].arguments : nil)
        } ?? []
        events += close(status: status)
        for (number, call) in summary.toolCalls.enumerated() where streamedCallIDs[number] == nil {
            let id = ToolCall.freshID("fc")
            events.append(event("response.output_item.added", ["output_index": index,
                                                               "item": reply.functionCallItem(id: id, call: call, status: "in_progress")]))
            events.append(event("response.function_call_arguments.delta", ["item_id": .string(id), "output_index": index,
                                                                           "delta": .string(call.arguments)]))
            events.append(event("response.function_call_arguments.done", ["item_id": .string(id), "output_index": index,
                                                                          "arguments": .string(call.arguments)]))
            let item = reply.functionCallItem(id: id, call: call, status: "completed")
            events.append(event("response.output_item.done", ["output_index": index, "item": item]))
            output.append(item)
        }
        // A reply with nothing to show is still a message, as a whole response lists it.
        if output.isEmpty { events += begin(.text) + close(status: status) }
        let response = reply.response(status: status, output: output, usage: ResponsesReply.usage(summary.statistics), incomplete: incomplete)
        events.append(event(status == "completed" ? "response.completed" : "response.incomplete", ["response": response]))
        return events
    }

    /// The whole response the stream ended with, as ``finish(_:)`` sent it (to store it).
    public func response(of summary: ReplySummary) -> JSONValue {
        let (status, incomplete) = ResponsesReply.status(summary)
        return reply.response(status: status, output: output, usage: ResponsesReply.usage(summary.statistics), incomplete: incomplete)
    }

    /// The event that ends a stream that failed partway.
    public mutating func error(_ message: String, code: String = "server_error") -> Event {
        event("error", ["code": .string(code), "message": .string(message), "param": .null])
    }

    private var index: JSONValue { .number(Double(output.count)) }

    private mutating func event(_ type: String, _ fields: KeyValuePairs<String, JSONValue>) -> Event {
        var members = [JSONObject.Member(key: "type", value: .string(type))]
        members += fields.map { JSONObject.Member(key: $0.key, value: $0.value) }
        members.append(.init(key: "sequence_number", value: .number(Double(sequence))))
        sequence += 1
        return (type, .object(JSONObject(members)))
    }

    /// Closes the open item, if any, and opens one of `kind`.
    private mutating func begin(_ kind: Kind) -> [Event] {
        var events = close()
        let id = ToolCall.freshID(kind == .text ? "msg" : "rs")
        open = (kind, id, "")
        let item = kind == .text ? reply.messageItem(id: id, text: nil, status: "in_progress")
            : JSONValue.fields(["type": .string("reasoning"), "id": .string(id), "summary": .array([])])
        events.append(event("response.output_item.added", ["output_index": index, "item": item]))
        let part = kind == .text ? reply.outputText("") : .fields(["type": .string("reasoning_text"), "text": .string("")])
        events.append(event("response.content_part.added", ["item_id": .string(id), "output_index": index, "content_index": .number(0),
                                                            "part": part]))
        return events
    }

    /// Closes the open item, and lists it: a message with `status` (`incomplete` when a limit cut it).
    private mutating func close(status: String = "completed") -> [Event] {
        guard let (kind, id, text) = open else { return closeCall(arguments: nil) }
        open = nil
        let item: JSONValue
        var events: [Event] = []
        switch kind {
        case .text:
            events.append(event("response.output_text.done", ["item_id": .string(id), "output_index": index, "content_index": .number(0),
                                                              "text": .string(text), "logprobs": .array([])]))
            events.append(event("response.content_part.done", ["item_id": .string(id), "output_index": index, "content_index": .number(0),
                                                               "part": reply.outputText(text)]))
            item = reply.messageItem(id: id, text: text, status: status)
        case .reasoning:
            events.append(event("response.reasoning_text.done", ["item_id": .string(id), "output_index": index, "content_index": .number(0),
                                                                 "text": .string(text)]))
            events.append(event("response.content_part.done", ["item_id": .string(id), "output_index": index, "content_index": .number(0),
                                                               "part": .fields(["type": .string("reasoning_text"), "text": .string(text)])]))
            if reply.request.summarisesReasoning {
                // The summary is the reasoning itself: a model this size has nothing shorter to say.
                let empty: JSONValue = .fields(["type": .string("summary_text"), "text": .string("")])
                let whole: JSONValue = .fields(["type": .string("summary_text"), "text": .string(text)])
                for (type, key, value) in [("response.reasoning_summary_part.added", "part", empty),
                                           ("response.reasoning_summary_text.delta", "delta", JSONValue.string(text)),
                                           ("response.reasoning_summary_text.done", "text", .string(text)),
                                           ("response.reasoning_summary_part.done", "part", whole)] {
                    events.append(event(type, ["item_id": .string(id), "output_index": index, "summary_index": .number(0), key: value]))
                }
            }
            item = reply.reasoningItem(id: id, text: text)
        }
        events.append(event("response.output_item.done", ["output_index": index, "item": item]))
        output.append(item)
        return events
    }
}
