import TideCore
import TideFormat
import TideOpenAI

/// The Messages API as a client speaks it (`--remote-api messages`): a request for one streamed
/// reply to a conversation, and its events read back (``MessagesEventReader``).
public enum MessagesClient {
    /// The body asking `model` for a streamed reply to `messages` with `parameters`: the system
    /// messages as `system`, the others as user and assistant messages (a call as a `tool_use`
    /// block, results as the next user message's `tool_result` blocks), the parameters as
    /// ``TideOpenAI/ChatCompletionRequest/setParameters(_:)`` sends them (`stop` as
    /// `stop_sequences`), the tools with their `input_schema`. A reply format has no place in the
    /// Messages API: it is a ``RequestFieldError``.
    public static func body(model: String, messages: [ChatMessage], parameters: GenerationParameters) throws(RequestFieldError) -> JSONValue {
        guard parameters.format == nil else {
            throw RequestFieldError(field: "format", message: "a reply format cannot be asked for through the Messages API; "
                                        + "use --remote-api chat or responses")
        }
        let system = messages.filter { $0.role == .system }.map(\.content).joined(separator: "\n\n")
        var turns: [(role: String, blocks: [JSONValue])] = []
        for message in messages where message.role != .system {
            let (role, blocks) = turn(message)
            if turns.last?.role == role { turns[turns.count - 1].blocks += blocks } else { turns.append((role, blocks)) }
        }
        var members: [JSONObject.Member] = [.init(key: "model", value: .string(model))]
        if !system.isEmpty { members.append(.init(key: "system", value: .string(system))) }
        members += [.init(key: "messages", value: .array(turns.map { .fields(["role": .string($0.role), "content": .array($0.blocks)]) })),
                    .init(key: "stream", value: .bool(true))]
        var request = ChatCompletionRequest(model: model, messages: [])
        request.setParameters(parameters)
        for setting in request.parameters {
            let field = setting.declaration.field == "stop" ? "stop_sequences" : setting.declaration.field
            members.append(.init(key: field, value: JSONValue(setting.value)))
        }
        if parameters.offersTools {
            let tools = parameters.tools.map { tool in
                JSONValue.fields(["name": .string(tool.name), "description": .string(tool.description),
                                  "input_schema": (try? JSONValue(parsing: tool.parameters)) ?? .fields([:])])
            }
            var choice: [JSONObject.Member] = switch parameters.toolChoice {
            case .auto: [.init(key: "type", value: .string("auto"))]
            case .none: [.init(key: "type", value: .string("none"))]
            case .required: [.init(key: "type", value: .string("any"))]
            case .named(let name): [.init(key: "type", value: .string("tool")), .init(key: "name", value: .string(name))]
            }
            if !parameters.parallelToolCalls { choice.append(.init(key: "disable_parallel_tool_use", value: .bool(true))) }
            members += [.init(key: "tools", value: .array(tools)), .init(key: "tool_choice", value: .object(JSONObject(choice)))]
        }
        return .object(JSONObject(members))
    }

    /// `message`'s role in the Messages API and its blocks.
    static func turn(_ message: ChatMessage) -> (role: String, blocks: [JSONValue]) {
        let text: [JSONValue] = message.content.isEmpty ? [] : [.fields(["type": .string("text"), "text": .string(message.content)])]
        switch message.role {
        case .tool:
            return ("user", [.fields(["type": .string("tool_result"), "tool_use_id": .string(message.toolCallID ?? ""),
                                      "content": .string(message.content)])])
        case .assistant:
            let calls = message.toolCalls.map { call in
                JSONValue.fields(["type": .string("tool_use"), "id": .string(call.id), "name": .string(call.name),
                                  "input": (try? JSONValue(parsing: call.arguments)) ?? .fields([:])])
            }
            return ("assistant", text.isEmpty && calls.isEmpty ? [.fields(["type": .string("text"), "text": .string("")])] : text + calls)
        default:
            return ("user", text.isEmpty ? [.fields(["type": .string("text"), "text": .string("")])] : text)
        }
    }
}

/// Reads the Messages API's events: `text_delta` as text, `thinking_delta` as reasoning, each
/// `tool_use` block's name and `input_json_delta` pieces as a call, `message_stop` as the end;
/// an `error` event is the server's error.
public struct MessagesEventReader: StreamedReplyReader {
    /// Each call's number in the reply, by its block's index.
    private var calls: [Int: Int] = [:]

    /// A reader.
    public init() {}

    public mutating func read(_ event: ServerSentEvent) throws(StreamedError) -> [StreamedPiece] {
        guard case .object(let data)? = try? JSONValue(parsing: event.data), case .string(let type)? = data["type"] else {
            throw .malformed("not a Messages API event: \(event.data.prefix(120))")
        }
        let index: Int? = if case .number(let number)? = data["index"] { Int(exactly: number) } else { nil }
        switch type {
        case "content_block_start":
            guard case .object(let block)? = data["content_block"], let index else { return [] }
            switch block["type"] {
            case .string("tool_use")?:
                guard case .string(let id)? = block["id"], case .string(let name)? = block["name"] else { return [] }
                calls[index] = calls.count
                return [.toolCall(WireToolCallDelta(index: calls[index]!, id: id, type: "function", function: .init(name: name, arguments: "")))]
            case .string("text")?: if case .string(let text)? = block["text"], !text.isEmpty { return [.text(text)] }
            default: break
            }
            return []
        case "content_block_delta":
            guard case .object(let delta)? = data["delta"] else { return [] }
            switch (delta["type"], delta["text"] ?? delta["thinking"] ?? delta["partial_json"]) {
            case (.string("text_delta")?, .string(let text)?): return [.text(text)]
            case (.string("thinking_delta")?, .string(let text)?): return [.reasoning(text)]
            case (.string("input_json_delta")?, .string(let piece)?):
                guard let index, let call = calls[index] else { return [] }
                return [.toolCall(WireToolCallDelta(index: call, function: .init(arguments: piece)))]
            default: return []
            }
        case "message_stop": return [.finished]
        case "error":
            if case .object(let error)? = data["error"], case .string(let message)? = error["message"] { throw .server(message) }
            throw .server(event.data)
        default: return []
        }
    }
}
