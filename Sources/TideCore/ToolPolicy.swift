/// A tool call as policy hooks (`on_tool_call`, `on_tool_result`) see it: what the model asked
/// for, who provides the tool, and in which round of the turn.
public struct ToolCallReview: Sendable, Hashable {
    /// The call, with the arguments as the hooks before left them.
    public var call: ToolCall
    /// What runs the tool: a plugin's name, or `mcp:SERVER` for an MCP server's tool.
    public var provider: String
    /// The round of tool calls in the turn, from 1.
    public var round: Int

    /// A call `provider` runs, in `round`.
    public init(call: ToolCall, provider: String, round: Int) {
        self.call = call
        self.provider = provider
        self.round = round
    }
}

/// What a policy hook decides about a tool call before it runs.
public enum ToolCallDecision: Sendable, Hashable {
    /// Run it as it is (or as the hooks before rewrote it).
    case run
    /// Run it with these arguments (a JSON object's text) instead.
    case rewrite(arguments: String)
    /// Do not run it; the model reads that it was refused, and why.
    case refuse(reason: String)
    /// Do not run it; the model reads this as its result.
    case answer(String)
}


/// The result a policy hook gave a call in the tool's place: a refusal, or its own answer.
struct PolicyResult: Error {
    var result: ToolResult
}

extension ToolBox {
    /// Runs `call`, of round `round` (from 1), as the policy hooks of `chain` decide
    /// (``review(_:round:policy:)``); a call left to run is then put to `approval` (the user's,
    /// under `--approve-tools`) and run.
    func run(_ call: ToolCall, round: Int, policy chain: HookChain, approval: ToolApproval?) async throws(HookFailure) -> ToolResult {
        let allowed: ToolCall
        switch try review(call, round: round, policy: chain) {
        case .success(let reviewed): allowed = reviewed
        case .failure(let answered): return answered.result
        }
        if let approval, !(await approval(allowed)) {
            return ToolResult(call: allowed, content: "error: the user declined to run this call", failed: true, duration: .zero)
        }
        return await run(allowed)
    }

    /// `call`, of round `round` (from 1), as the policy hooks of `chain` decide: each
    /// `on_tool_call` in hook order may rewrite its arguments, or end it with a refusal or an
    /// answer of its own. The call to make (its arguments as rewritten), or the result the model
    /// reads in its place. A policy hook that fails refuses the call (and is handled as any hook's
    /// failure), and every later call while it is disabled: a broken policy never lets through
    /// what it was there to stop. A call of a tool this box does not run (a server's client's) is
    /// reviewed the same way before it is returned to the client.
    func review(_ call: ToolCall, round: Int, policy chain: HookChain) throws(HookFailure) -> Result<ToolCall, PolicyResult> {
        var review = ToolCallReview(call: call, provider: provider(of: call.name), round: round)
        for (hook, disabled) in chain.implementing(.toolCall) {
            let refused = { (reason: String) in
                PolicyResult(result: ToolResult(call: review.call, content: "error: \(hook.name) refused this call: \(reason)", failed: true,
                                                duration: .zero))
            }
            if disabled { return .failure(refused("its policy failed earlier (the plugin is disabled), so no call runs unchecked")) }
            let given = "\(review.call.name)(\(HookCall.excerpt(review.call.arguments))) from \(review.provider), round \(round)"
            guard let decision = try chain.call(hook, at: .toolCall, given: given, outcome: \.traced, { try hook.onToolCall(review) }) else {
                return .failure(refused("its policy failed (the plugin is disabled)"))
            }
            switch decision {
            case .run: continue
            case .rewrite(let arguments): review.call.arguments = arguments
            case .refuse(let reason): return .failure(refused(reason))
            case .answer(let text): return .failure(PolicyResult(result: ToolResult(call: review.call, content: text, failed: false, duration: .zero)))
            }
        }
        return .success(review.call)
    }

    /// `results`, as fitted to the context, after each `on_tool_result` in hook order: what one
    /// returns replaces what the model reads, cut to `limit` bytes. A hook that fails withholds
    /// the result (and is handled as any hook's failure), and every later result while it is disabled.
    func reviewed(_ results: [ToolResult], round: Int, limit: Int, policy chain: HookChain) throws(HookFailure) -> [ToolResult] {
        var reviewed: [ToolResult] = []
        for var result in results {
            let review = ToolCallReview(call: result.call, provider: provider(of: result.call.name), round: round)
            for (hook, disabled) in chain.implementing(.toolResult) {
                if disabled {
                    // A disabled hook that also reviews calls refused this one: nothing ran to withhold.
                    if hook.points.contains(.toolCall) { continue }
                    result.content = "error: the result was withheld: \(hook.name) failed earlier (the plugin is disabled)"
                    result.failed = true
                    break
                }
                let given = "\(result.call.name): \(HookCall.excerpt(result.content))"
                guard let replacement = try chain.call(hook, at: .toolResult, given: given,
                                                       outcome: { $0.map { "replaced by \(HookCall.excerpt($0))" } ?? "left as it was" },
                                                       { try hook.onToolResult(result, review: review) }) else {
                    result.content = "error: the result was withheld: \(hook.name) failed on it (the plugin is disabled)"
                    result.failed = true
                    break
                }
                if let replacement { result.content = Self.cut(replacement, to: limit) }
            }
            reviewed.append(result)
        }
        return reviewed
    }

    /// `history` with the tool results that end it (sent by the caller: a server's client ran
    /// the calls) after each `on_tool_result`, as ``reviewed(_:round:limit:policy:)`` reviews the
    /// results of the tools Tide runs: whoever ran a call, the model reads its result only as the
    /// policy leaves it.
    func reviewingSentResults(of history: [ChatMessage], limit: Int, policy chain: HookChain) throws(HookFailure) -> [ChatMessage] {
        let start = history.lastIndex { $0.role != .tool }.map { $0 + 1 } ?? 0
        guard start < history.count, !chain.implementing(.toolResult).isEmpty else { return history }
        let calls = start > 0 ? history[start - 1].toolCalls : []
        let sent = history[start...].map { message in
            ToolResult(call: calls.first { $0.id == message.toolCallID } ?? ToolCall(id: message.toolCallID ?? "", name: "", arguments: "{}"),
                       content: message.content, failed: false, duration: .zero)
        }
        var reviewed = history
        for (index, result) in try self.reviewed(sent, round: 1, limit: limit, policy: chain).enumerated() {
            reviewed[start + index].content = result.content
        }
        return reviewed
    }
}
