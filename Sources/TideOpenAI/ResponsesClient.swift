import Foundation
import TideCore
import TideFormat

/// The Responses API as a client speaks it (`--remote-api responses`): a request for one streamed
/// reply to a conversation, and its events read back (``ResponsesEventReader``).
public enum ResponsesClient {
    /// The body asking `model` for a streamed reply to `messages` with `parameters`: the
    /// conversation as input items (tool calls as `function_call`, results as
    /// `function_call_output`), nothing stored (the whole conversation goes with every request),
    /// the parameters as ``ChatCompletionRequest/setParameters(_:)`` sends them (`max_tokens` as
    /// `max_output_tokens`), a reply format as `text.format`, the tools as function tools.
    public static func body(model: String, messages: [ChatMessage], parameters: GenerationParameters) -> JSONValue {
        var members: [JSONObject.Member] = [
            .init(key: "model", value: .string(model)), .init(key: "input", value: .array(messages.flatMap(items))),
            .init(key: "stream", value: .bool(true)), .init(key: "store", value: .bool(false)),
        ]
        var request = ChatCompletionRequest(model: model, messages: [])
        request.setParameters(parameters)
        for setting in request.parameters {
            let field = setting.declaration.field == "max_tokens" ? "max_output_tokens" : setting.declaration.field
            members.append(.init(key: field, value: JSONValue(setting.value)))
        }
        if let format = parameters.format {
            let shape: JSONValue = switch format.kind {
            case .json: .fields(["type": .string("json_object")])
            case .jsonSchema: .fields(["type": .string("json_schema"), "name": .string("reply"),
                                       "schema": (try? JSONValue(parsing: format.definition)) ?? .fields([:]), "strict": .bool(true)])
            // A grammar has no place in the Responses API; llama.cpp's field carries it, as for Chat Completions.
            case .grammar: .null
            }
            members += shape == .null ? format.requestFields : [.init(key: "text", value: .fields(["format": shape]))]
        }
        if parameters.offersTools {
            let tools = parameters.tools.map { tool in
                JSONValue.fields(["type": .string("function"), "name": .string(tool.name), "description": .string(tool.description),
                                  "parameters": (try? JSONValue(parsing: tool.parameters)) ?? .fields([:])])
            }
            let choice: JSONValue = switch parameters.toolChoice {
            case .named(let name): .fields(["type": .string("function"), "name": .string(name)])
            case let other: .string(other.description)
            }
            members += [.init(key: "tools", value: .array(tools)), .init(key: "tool_choice", value: choice)]
            if !parameters.parallelToolCalls { members.append(.init(key: "parallel_tool_calls", value: .bool(false))) }
        }
        return .object(JSONObject(members))
    }

    /// `message` as input items.
    static func items(_ message: ChatMessage) -> [JSONValue] {
        switch message.role {
        case .tool:
            return [.fields(["type": .string("function_call_output"), "call_id": .string(message.toolCallID ?? ""),
                             "output": .string(message.content)])]
        case .assistant:
            let text: [JSONValue] = message.content.isEmpty && !message.toolCalls.isEmpty ? []
                : [.fields(["role": .string("assistant"), "content": .string(message.content)])]
            return text + message.toolCalls.map { call in
                .fields(["type": .string("function_call"), "call_id": .string(call.id), "name": .string(call.name),
                         "arguments": .string(call.arguments)])
            }
        default:
            return [.fields(["role": .string(message.role.rawValue), "content": .string(message.content)])]
        }
    }
}

/// Reads the Responses API's typed events: `response.output_text.delta` as text, the reasoning's
/// text (or, from a server that gives only that, its summary) as reasoning, each
/// `function_call` item's name and arguments as a call, `response.completed` and
/// `response.incomplete` as the end; `response.failed` and `error` are the server's errors.
public struct ResponsesEventReader: StreamedReplyReader {
    /// Each call's number in the reply, by its item's id, and whether its arguments came in pieces.
    private var calls: [String: (index: Int, streamed: Bool)] = [:]
    private var reasoningText = false

    /// A reader.
    public init() {}

    public mutating func read(_ event: ServerSentEvent) throws(StreamedError) -> [StreamedPiece] {
        guard case .object(let data)? = try? JSONValue(parsing: event.data), case .string(let type)? = data["type"] else {
            throw .malformed("not a Responses API event: \(event.data.prefix(120))")
        }
        func text(_ key: String) -> String? { if case .string(let text)? = data[key] { text } else { nil } }
        switch type {
        case "response.output_text.delta": return text("delta").map { [.text($0)] } ?? []
        case "response.reasoning_text.delta":
            reasoningText = true
            return text("delta").map { [.reasoning($0)] } ?? []
        case "response.reasoning_summary_text.delta" where !reasoningText: return text("delta").map { [.reasoning($0)] } ?? []
        case "response.output_item.added", "response.output_item.done":
            guard case .object(let item)? = data["item"], item["type"] == .string("function_call"),
                  case .string(let id)? = item["id"] ?? item["call_id"] else { return [] }
            if type == "response.output_item.added" {
                calls[id] = (calls.count, false)
                guard case .string(let callID)? = item["call_id"], case .string(let name)? = item["name"] else { return [] }
                return [.toolCall(WireToolCallDelta(index: calls[id]!.index, id: callID, type: "function",
                                                    function: .init(name: name, arguments: "")))]
            }
            // A server that sent the arguments whole, with the item done.
            guard let call = calls[id], !call.streamed, case .string(let arguments)? = item["arguments"] else { return [] }
            return [.toolCall(WireToolCallDelta(index: call.index, function: .init(arguments: arguments)))]
        case "response.function_call_arguments.delta":
            guard let id = text("item_id"), let call = calls[id], let delta = text("delta") else { return [] }
            calls[id]?.streamed = true
            return [.toolCall(WireToolCallDelta(index: call.index, function: .init(arguments: delta)))]
        case "response.completed", "response.incomplete": return [.finished]
        case "response.failed":
            if case .object(let response)? = data["response"], case .object(let error)? = response["error"],
               case .string(let message)? = error["message"] { throw .server(message) }
            throw .server("the response failed")
        case "error": throw .server(text("message") ?? event.data)
        default: return []
        }
    }
}
