import TideCore
import TideFormat

/// The policy hooks, `on_tool_call(call)` and `on_tool_result(result)`, marshalled to and from
/// Lua (docs/plugins.md, "Policy"). `call` is `{name, arguments, provider, round}`, the
/// arguments a table (or, where they are not a JSON object, the text as the model wrote it);
/// `result` adds `content` and `failed`.
extension LuaPlugin {
    public func onToolCall(_ review: ToolCallReview) throws -> ToolCallDecision {
        let decision = try call(.toolCall, [Self.luaReview(review)], results: 1).results.first ?? .nil
        let usage = "on_tool_call returns nil (run the call), {refuse = REASON}, {answer = RESULT} or {arguments = TABLE}"
        guard case .table(let array, let fields) = decision else {
            if decision == .nil || decision == .boolean(true) { return .run }
            throw LuaError(.runtime, "\(usage), not a \(decision.typeName)")
        }
        guard array.isEmpty, fields.count == 1, let (key, value) = fields.first else {
            throw LuaError(.runtime, "\(usage): one of those fields, not \(fields.keys.sorted().joined(separator: ", "))")
        }
        switch key {
        case "refuse":
            guard let reason = value.string else { throw LuaError(.runtime, "on_tool_call's refuse must be the reason, a string") }
            return .refuse(reason: try Self.bounded(reason, from: .toolCall, limit: Self.textLimit))
        case "answer":
            let text = try value.string ?? Self.json(from: value, at: "answer", what: "on_tool_call's answer").text
            return .answer(try Self.bounded(text, from: .toolCall, limit: Self.textLimit))
        case "arguments":
            let arguments = try Self.json(from: value, at: "arguments", what: "on_tool_call's arguments")
            guard case .table = value, case .object = arguments else {
                throw LuaError(.runtime, "on_tool_call's arguments must be a table of the arguments by name")
            }
            return .rewrite(arguments: arguments.text)
        default:
            throw LuaError(.runtime, "\(usage), not {\(key) = …}")
        }
    }

    public func onToolResult(_ result: ToolResult, review: ToolCallReview) throws -> String? {
        guard case .table(_, var fields) = Self.luaReview(review) else { return nil }
        fields["content"] = .string(result.content)
        fields["failed"] = .boolean(result.failed)
        switch try call(.toolResult, [.table(array: [], fields: fields)], results: 1).results.first ?? .nil {
        case .nil: return nil
        case .string(let text): return try Self.bounded(text, from: .toolResult, limit: Self.textLimit)
        case let other: throw LuaError(.runtime, "on_tool_result returns nil (the result as it is) or the text the model reads instead, not a \(other.typeName)")
        }
    }

    /// A call as the policy hooks see it.
    static func luaReview(_ review: ToolCallReview) -> LuaValue {
        let arguments: LuaValue = if let parsed = try? JSONValue(parsing: review.call.arguments), case .object = parsed {
            lua(parsed)
        } else {
            .string(review.call.arguments)
        }
        return .table(array: [], fields: ["name": .string(review.call.name), "arguments": arguments,
                                          "provider": .string(review.provider), "round": .integer(Int64(review.round))])
    }
}
