import TideCore

/// Tool calls as Meta's Llama 3.1, 3.2 and 3.3 write them, as
/// `models/templates/meta-llama-Llama-3.2-3B-Instruct.jinja` of llama.cpp renders them: the
/// tools (each as indented JSON) and the format to answer in, in the first user message; the
/// system prompt says `Environment: ipython`; a call is the whole reply,
/// `{"name": …, "parameters": {…}}`, one at a time; a result is a turn of the `ipython` role,
/// written as JSON (a text as a quoted string).
public struct LlamaToolCalls: ToolCallReader {
    /// Where a call starts: the reply opens the JSON object with its name.
    public let marker = #"{"name""#
    /// Results come back as the `ipython` role's turns.
    public let toolRole = "ipython"

    /// The reader.
    public init() {}

    public func prompt(_ messages: [ChatMessage], offering tools: [ToolDefinition]) -> [ChatMessage] {
        var result = messages.map { message in
            switch message.role {
            case .assistant where !message.toolCalls.isEmpty:
                ChatMessage(.assistant, written(message.toolCalls), interrupted: message.interrupted, reasoning: message.reasoning)
            // The template writes a result as JSON: a text is a quoted string.
            case .tool: ChatMessage(.tool, JSONValue.string(message.content).text, toolCallID: message.toolCallID)
            default: ChatMessage(message.role, message.content, interrupted: message.interrupted, reasoning: message.reasoning)
            }
        }
        guard !tools.isEmpty else { return result }
        if let system = result.firstIndex(where: { $0.role == .system }) {
            result[system].content = "Environment: ipython\n" + result[system].content
        } else {
            result.insert(ChatMessage(.system, "Environment: ipython\n"), at: 0)
        }
        let listed = tools.map { $0.functionJSON.dumped(indent: 4) + "\n\n" }.joined()
        let guidance = "Given the following functions, please respond with a JSON for a function call with its proper arguments "
            + "that best answers the given prompt.\n\n"
            + #"Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}."#
            + "Do not use variables.\n\n" + listed
        if let user = result.firstIndex(where: { $0.role == .user }) {
            result[user].content = guidance + result[user].content
        }
        return result
    }

    /// One call, as the model writes it; Llama 3 makes one call per reply, so several are
    /// written one after another (a conversation given such calls by a client).
    public func written(_ calls: [ToolCall]) -> String {
        calls.map { $0.json(argumentsKey: "parameters") }.joined()
    }

    public func calls(in text: String) throws(ToolFailure) -> [ToolCall] {
        let json = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard case .object(let object)? = try? JSONValue(parsing: json) else {
            throw ToolFailure("the tool call is not a JSON object: \(ToolCall.excerpt(json))")
        }
        guard case .string(let name)? = object["name"] else {
            throw ToolFailure("the tool call names no tool (\"name\"): \(ToolCall.excerpt(json))")
        }
        let arguments = object["parameters"] ?? object["arguments"] ?? .object(JSONObject([]))
        guard case .object = arguments else {
            throw ToolFailure("the parameters of the call of \(name) are not a JSON object: \(ToolCall.excerpt(json))")
        }
        return [ToolCall(id: "call_1", name: name, arguments: arguments.text, written: json)]
    }

    /// One call (Llama 3 makes one per reply, whatever `parallel` says): a JSON object naming one
    /// of `tools` (only the one `choice` names), with parameters valid against its schema.
    public func callGrammar(for tools: [ToolDefinition], choice: ToolChoice, parallel: Bool) throws(ToolFailure) -> String {
        try ToolCallGrammar.objects(for: tools, choice: choice, argumentsKey: "parameters").text
    }

    /// The reply's first `{"name"`.
    public var lazyTrigger: String { #"\{"name""# }
}
