import TideCore

/// Tool calls as ChatML models write them (Hermes 2 Pro's format, which Qwen 2.5's template
/// uses and SmolLM2 follows): the tools listed as JSON in `<tools></tools>` in the system
/// prompt, a call written `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, results
/// given back in a user turn as `<tool_response>\n…\n</tool_response>` (consecutive results in
/// one turn), as `models/templates/Qwen-Qwen2.5-7B-Instruct.jinja` of llama.cpp renders them.
public struct HermesToolCalls: ToolCallReader {
    public let marker = "<tool_call>"
    private let closing = "</tool_call>"

    /// The reader.
    public init() {}

    public func prompt(_ messages: [ChatMessage], offering tools: [ToolDefinition]) -> [ChatMessage] {
        var result: [ChatMessage] = []
        var previous: ChatRole?
        for message in messages {
            defer { previous = message.role }
            switch message.role {
            case .tool:
                let response = "<tool_response>\n\(message.content)\n</tool_response>"
                if previous == .tool {
                    result[result.count - 1].content += "\n" + response
                } else {
                    result.append(ChatMessage(.user, response))
                }
            case .assistant where !message.toolCalls.isEmpty:
                // As Qwen 2.5's template writes it: the text, a line break, the calls.
                let text = message.content.isEmpty || message.content.hasSuffix("\n") ? message.content : message.content + "\n"
                result.append(ChatMessage(.assistant, text + written(message.toolCalls), interrupted: message.interrupted,
                                          reasoning: message.reasoning))
            default:
                result.append(ChatMessage(message.role, message.content, interrupted: message.interrupted, reasoning: message.reasoning))
            }
        }
        guard !tools.isEmpty else { return result }
        let block = Self.toolsBlock(tools)
        if let first = result.first, first.role == .system {
            result[0].content = first.content + "\n\n" + block
        } else {
            result.insert(ChatMessage(.system, block), at: 0)
        }
        return result
    }

    public func written(_ calls: [ToolCall]) -> String {
        calls.map { "\(marker)\n\($0.json(argumentsKey: "arguments"))\n\(closing)" }
            .joined(separator: "\n")
    }

    public func calls(in text: String) throws(ToolFailure) -> [ToolCall] {
        var calls: [ToolCall] = []
        var rest = Substring(text)
        while let open = rest.range(of: marker) {
            // The JSON is read as JSON, so a closing tag inside one of its strings is the string's.
            let body = JSONSpan.trimmingLeadingSpaces(rest[open.upperBound...].utf8)
            guard let end = JSONSpan.end(ofValueAt: body) else {
                let problem = body.first == UInt8(ascii: "{") ? "ends inside its JSON" : "is not a JSON object"
                throw ToolFailure("the tool call \(problem): \(ToolCall.excerpt(Substring(body)))")
            }
            calls.append(try ToolCall(json: String(Substring(body[..<end])), id: "call_\(calls.count + 1)"))
            let after = Substring(JSONSpan.trimmingLeadingSpaces(body[end...]))
            guard after.hasPrefix(closing) else {
                throw ToolFailure("the tool call has no \(closing): \(ToolCall.excerpt(Substring(body)))")
            }
            rest = after.dropFirst(closing.count)
        }
        guard !calls.isEmpty else { throw ToolFailure("no tool call follows \(marker)") }
        return calls
    }

    public func callGrammar(for tools: [ToolDefinition], choice: ToolChoice, parallel: Bool) throws(ToolFailure) -> String {
        var grammar = try ToolCallGrammar.objects(for: tools, choice: choice, argumentsKey: "arguments")
        grammar.renameRoot(to: "tide-tool-call")
        let one = #""<tool_call>\n" tide-tool-call "\n</tool_call>""#
        return try grammar.withRoot(one + (parallel ? #" ("\n" \#(one))*"# : ""))
    }

    /// The pattern where a lazy grammar starts: the reply's first ``marker``. Searched for, not
    /// matched against the whole reply: llama.cpp tries the pattern on the reply so far at every
    /// token, so a pattern that spans the text (`[\s\S]*?(<tool_call>)[\s\S]*`) costs more
    /// the longer the reply (`tide bench --only tools` measures it).
    public var lazyTrigger: String { "<tool_call>" }

    /// The tools block of the system prompt, as Qwen 2.5's template writes it.
    static func toolsBlock(_ tools: [ToolDefinition]) -> String {
        let listed = tools.map { $0.functionJSON.dumped() }
        return "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            + "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
            + listed.joined(separator: "\n")
            + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
            + "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"
    }
}
