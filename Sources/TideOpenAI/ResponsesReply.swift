import TideCore
import TideFormat

/// A reply in the Responses API's terms: the response object around its output items (a
/// `reasoning` item, a `message` with its `output_text`, a `function_call` a call), whole or
/// streamed as typed events (``ResponsesStream``).
public struct ResponsesReply: Sendable {
    /// The response's id: `resp_` and 24 random letters and digits.
    public let id: String
    let created: Int
    let model: String
    let request: ResponsesRequest
    let parameters: GenerationParameters

    /// The reply `id` of `model`, made at `created` (seconds since 1970) for `request`, sampled with `parameters`.
    public init(id: String = ToolCall.freshID("resp"), created: Int, model: String, request: ResponsesRequest,
                parameters: GenerationParameters) {
        self.id = id
        self.created = created
        self.model = model
        self.request = request
        self.parameters = parameters
    }

    /// The conversation a response continuing this one reads first, before the reply.
    public var conversation: [ChatMessage] { request.conversation }


    /// The response object: its `status` (`in_progress`, `completed`, `incomplete` with why),
    /// `output` and `usage`, and the request's settings as they were applied.
    public func response(status: String, output: [JSONValue], usage: JSONValue = .null, incomplete: String? = nil) -> JSONValue {
        let tools: [JSONValue] = request.tools?.tools.map { tool in
            .fields(["type": .string("function"), "name": .string(tool.name), "description": .string(tool.description),
                     "parameters": (try? JSONValue(parsing: tool.parameters)) ?? .null, "strict": .bool(true)])
        } ?? []
        let choice: JSONValue = switch request.tools?.choice ?? .auto {
        case .named(let name): .fields(["type": .string("function"), "name": .string(name)])
        case let other: .string(other.description)
        }
        return .fields([
            "id": .string(id), "object": .string("response"), "created_at": .number(Double(created)), "status": .string(status),
            "error": .null, "incomplete_details": incomplete.map { .fields(["reason": .string($0)]) } ?? .null,
            "instructions": request.instructions.map(JSONValue.string) ?? .null,
            "max_output_tokens": .number(Double(parameters.maxTokens)), "model": .string(model), "output": .array(output),
            "parallel_tool_calls": .bool(request.tools?.parallel ?? true),
            "previous_response_id": request.previousResponseID.map(JSONValue.string) ?? .null,
            "reasoning": .fields(["effort": .null, "summary": request.summarisesReasoning ? .string("auto") : .null]),
            "store": .bool(request.store), "temperature": .number(parameters.temperature), "text": .fields(["format": request.textFormat]),
            "tool_choice": choice, "tools": .array(tools), "top_p": .number(parameters.topP), "truncation": .string("disabled"),
            "usage": usage, "metadata": request.metadata,
        ])
    }

    /// The whole response `summary` ends.
    public func response(of summary: ReplySummary) -> JSONValue {
        var output: [JSONValue] = []
        if !summary.reasoning.isEmpty { output.append(reasoningItem(id: ToolCall.freshID("rs"), text: summary.reasoning)) }
        let (status, incomplete) = Self.status(summary)
        if !summary.text.isEmpty || summary.toolCalls.isEmpty {
            output.append(messageItem(id: ToolCall.freshID("msg"), text: summary.text, status: status))
        }
        output += summary.toolCalls.map { functionCallItem(id: ToolCall.freshID("fc"), call: $0, status: "completed") }
        return response(status: status, output: output, usage: Self.usage(summary.statistics), incomplete: incomplete)
    }

    /// The status of a response `summary` ends: `incomplete` (with `max_output_tokens`) when a
    /// limit cut it, else `completed`.
    static func status(_ summary: ReplySummary) -> (status: String, incomplete: String?) {
        guard summary.toolCalls.isEmpty else { return ("completed", nil) }
        return switch summary.stopReason {
        case .maxTokens, .contextFull: ("incomplete", "max_output_tokens")
        default: ("completed", nil)
        }
    }

    /// The usage: the prompt's tokens (those found in the cache among them), the reply's (the
    /// reasoning's among them).
    static func usage(_ statistics: GenerationStatistics) -> JSONValue {
        .fields([
            "input_tokens": .number(Double(statistics.promptTokens)),
            "input_tokens_details": .fields(["cached_tokens": .number(Double(statistics.reusedPromptTokens)), "cache_write_tokens": .number(0)]),
            "output_tokens": .number(Double(statistics.generatedTokens)),
            "output_tokens_details": .fields(["reasoning_tokens": .number(Double(statistics.reasoningTokens))]),
            "total_tokens": .number(Double(statistics.promptTokens + statistics.generatedTokens)),
        ])
    }

    /// A `reasoning` item: its text as `reasoning_text` content, and as the summary when the request asks for one.
    func reasoningItem(id: String, text: String) -> JSONValue {
        .fields(["type": .string("reasoning"), "id": .string(id),
                 "summary": .array(request.summarisesReasoning ? [.fields(["type": .string("summary_text"), "text": .string(text)])] : []),
                 "content": .array([.fields(["type": .string("reasoning_text"), "text": .string(text)])])])
    }

    func messageItem(id: String, text: String?, status: String) -> JSONValue {
        .fields(["type": .string("message"), "id": .string(id), "status": .string(status), "role": .string("assistant"),
                 "content": .array(text.map { [outputText($0)] } ?? [])])
    }

    func outputText(_ text: String) -> JSONValue {
        .fields(["type": .string("output_text"), "text": .string(text), "annotations": .array([]), "logprobs": .array([])])
    }

    func functionCallItem(id: String, call: ToolCall, status: String) -> JSONValue {
        .fields(["type": .string("function_call"), "id": .string(id), "call_id": .string(call.id), "name": .string(call.name),
                 "arguments": .string(status == "in_progress" ? "" : call.arguments), "status": .string(status)])
    }
}
