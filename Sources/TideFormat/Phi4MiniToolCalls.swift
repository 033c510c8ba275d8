import TideCore

/// Tool calls as Phi-4-mini writes them: the tools listed as a JSON array in the system turn,
/// between `<|tool|>` and `<|/tool|>` (its template writes a system message's `tools` there), the
/// calls written `functools[{"name": …, "arguments": {…}}, …]`, and each result given back in a
/// `tool` turn (`<|tool|>…<|end|>`), as Microsoft's model card and its template have them.
public struct Phi4MiniToolCalls: ToolCallReader {
    public let marker = "functools["

    /// The reader.
    public init() {}

    public func prompt(_ messages: [ChatMessage], offering tools: [ToolDefinition]) -> [ChatMessage] {
        var result = messages.map { message in
            message.role == .assistant && !message.toolCalls.isEmpty
                ? ChatMessage(.assistant, message.content + written(message.toolCalls), interrupted: message.interrupted,
                              reasoning: message.reasoning)
                : message
        }
        guard !tools.isEmpty else { return result }
        if result.first?.role != .system { result.insert(ChatMessage(.system, ""), at: 0) }
        let listed = tools.compactMap { tool -> JSONValue? in
            if case .object(let object) = tool.functionJSON { object["function"] } else { nil }
        }
        result[0].offeredTools = JSONValue.array(listed).dumped()
        return result
    }

    public func written(_ calls: [ToolCall]) -> String {
        marker + calls.map { $0.json(argumentsKey: "arguments") }.joined(separator: ", ") + "]"
    }

    public func calls(in text: String) throws(ToolFailure) -> [ToolCall] {
        guard text.hasPrefix(marker) else { throw ToolFailure("no tool call follows \(marker)") }
        var calls: [ToolCall] = []
        for item in try Self.items(of: text.utf8.dropFirst(marker.utf8.count)) {
            calls.append(try ToolCall(json: String(decoding: item, as: UTF8.self), id: "call_\(calls.count + 1)"))
        }
        guard !calls.isEmpty else { throw ToolFailure("no tool call follows \(marker)") }
        return calls
    }

    /// The items of the JSON array that `text` continues (after its `[`), each as written, up to
    /// the `]` that closes it.
    private static func items(of text: Substring.UTF8View) throws(ToolFailure) -> [Substring.UTF8View] {
        var items: [Substring.UTF8View] = []
        var rest = JSONSpan.trimmingLeadingSpaces(text)
        if rest.first == UInt8(ascii: "]") { return items }
        while let end = JSONSpan.end(ofValueAt: rest) {
            items.append(rest[..<end])
            rest = JSONSpan.trimmingLeadingSpaces(rest[end...])
            switch rest.first {
            case UInt8(ascii: "]"): return items
            case UInt8(ascii: ","): rest = JSONSpan.trimmingLeadingSpaces(rest.dropFirst())
            default: throw ToolFailure("the tool calls have no closing ]: \(ToolCall.excerpt(Substring(text)))")
            }
        }
        throw ToolFailure("the tool calls have no closing ]: \(ToolCall.excerpt(Substring(text)))")
    }

    /// The calls' grammar, from ``marker`` on: `functools[`, then one call (several, separated by
    /// `, `, when `parallel`), each a JSON object naming one of `tools` (only the one `choice`
    /// names) with arguments valid against its schema, then `]`.
    public func callGrammar(for tools: [ToolDefinition], choice: ToolChoice, parallel: Bool) throws(ToolFailure) -> String {
        var grammar = try ToolCallGrammar.objects(for: tools, choice: choice, argumentsKey: "arguments")
        grammar.renameRoot(to: "tide-tool-call")
        return try grammar.withRoot(#""functools[" tide-tool-call "# + (parallel ? #"(", " tide-tool-call)* "# : "") + #""]""#)
    }

    /// The reply's first ``marker``.
    public var lazyTrigger: String { #"functools\["# }
}
