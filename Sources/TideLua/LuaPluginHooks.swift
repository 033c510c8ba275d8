import CLua
import CLuaShim
import TideCore

/// The five hooks, marshalled to and from Lua tables (shapes documented in docs/plugins.md).
extension LuaPlugin {
    public func preparePrompt(_ prompt: inout PromptContext) throws -> PromptDecision {
        let messages = prompt.messages.map { LuaValue.table(array: [], fields: ["role": .string($0.role.rawValue),
                                                                                 "content": .string($0.content)]) }
        let argument = LuaValue.table(array: [], fields: ["messages": .table(array: messages, fields: [:]),
                                                          "params": Self.luaParameters(prompt.parameters)])
        let (results, edited) = try call(.prompt, [argument], results: 1, readBackFirst: true)
        if let answer = results.first?.string { return .answer(answer) }
        guard let edited else { return .proceed }
        prompt.messages = try Self.messages(from: edited["messages"])
        prompt.parameters = Self.parameters(from: edited["params"], over: prompt.parameters)
        return .proceed
    }

    public func adjustLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
        guard let reference = hookReference(.logits) else { return }
        let view = viewReference
        try withLogits(logits) {
            try withState { lua throws(LuaError) in
                let state = lua.pointer
                let top = lua_gettop(state)
                defer { lua_settop(state, top) }
                lua_rawgeti(state, tide_lua_registryindex(), lua_Integer(reference))
                lua_rawgeti(state, tide_lua_registryindex(), lua_Integer(view))
                lua.push(Self.luaProgress(reply))
                try lua.call(arguments: 2, results: 0)
            }
        }
    }

    public func shouldStop(_ reply: ReplyProgress) throws -> String? {
        let results = try call(.stop, [Self.luaProgress(reply)], results: 2).results
        if let requested = takeRequestedStop() { return requested }
        guard results.first == .boolean(true) else { return nil }
        return results.dropFirst().first?.string ?? "stop"
    }

    public func filterToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision {
        var fields: [String: LuaValue] = ["text": .string(token.text), "index": .integer(Int64(token.index))]
        if let id = token.id { fields["id"] = .integer(Int64(id)) }
        if token.isFinal { fields["final"] = .boolean(true) }
        let result = try call(.token, [.table(array: [], fields: fields), Self.luaProgress(reply)], results: 1).results.first
        var decision = TokenDecision(stopReason: takeRequestedStop())
        switch result ?? .nil {
        case .nil, .boolean(true): break
        case .boolean(false): decision.replacement = ""
        case .string(let replacement): decision.replacement = replacement
        case let other: throw LuaError(.runtime, "on_token must return nil, a string or false, not a \(other.typeName)")
        }
        return decision
    }

    public func finishReply(_ reply: inout FinishedReply) throws {
        let statistics = reply.statistics
        let stats = LuaValue.table(array: [], fields: [
            "prompt_tokens": .integer(Int64(statistics.promptTokens)),
            "generated_tokens": .integer(Int64(statistics.generatedTokens)),
            "time_to_first_token": statistics.timeToFirstToken.map { .number($0.seconds) } ?? .nil,
            "tokens_per_second": statistics.tokensPerSecond.map { .number($0) } ?? .nil,
        ])
        let argument = LuaValue.table(array: [], fields: [
            "raw": .string(reply.rawText), "text": .string(reply.shownText), "stored": .string(reply.storedText),
            "stop_reason": .string(reply.stopReason.description), "stats": stats,
        ])
        if let stored = try call(.reply, [argument], results: 1).results.first?.string { reply.storedText = stored }
        _ = takeRequestedStop()
    }

    static func luaProgress(_ reply: ReplyProgress) -> LuaValue {
        .table(array: [], fields: ["text": .string(reply.text), "tokens": .integer(Int64(reply.tokenCount)),
                                   "elapsed": .number(reply.elapsed.seconds)])
    }

    static func luaParameters(_ parameters: GenerationParameters) -> LuaValue {
        var fields: [String: LuaValue] = [
            "temperature": .number(parameters.temperature), "top_k": .integer(Int64(parameters.topK)),
            "top_p": .number(parameters.topP), "min_p": .number(parameters.minP),
            "repeat_penalty": .number(parameters.repeatPenalty), "max_tokens": .integer(Int64(parameters.maxTokens)),
            "stop": .table(array: parameters.stop.map(LuaValue.string), fields: [:]),
        ]
        if let seed = parameters.seed { fields["seed"] = .integer(Int64(seed)) }
        return .table(array: [], fields: fields)
    }

    static func parameters(from value: LuaValue, over base: GenerationParameters) -> GenerationParameters {
        var parameters = base
        if let number = value["temperature"].number { parameters.temperature = number }
        if let number = value["top_k"].number { parameters.topK = Int(number) }
        if let number = value["top_p"].number { parameters.topP = number }
        if let number = value["min_p"].number { parameters.minP = number }
        if let number = value["repeat_penalty"].number { parameters.repeatPenalty = number }
        if let number = value["max_tokens"].number { parameters.maxTokens = Int(number) }
        if let number = value["seed"].number, let seed = UInt32(exactly: number) { parameters.seed = seed }
        if case .table(let stops, _) = value["stop"] { parameters.stop = stops.compactMap(\.string) }
        return parameters
    }

    static func messages(from value: LuaValue) throws(LuaError) -> [ChatMessage] {
        guard case .table(let array, _) = value else {
            throw LuaError(.runtime, "on_prompt left prompt.messages as a \(value.typeName), not a list")
        }
        return try array.enumerated().map { (index, entry) throws(LuaError) -> ChatMessage in
            guard let role = entry["role"].string.flatMap(ChatRole.init(rawValue:)), let content = entry["content"].string else {
                throw LuaError(.runtime, "on_prompt left message \(index + 1) without a role (system, user or assistant) and a content string")
            }
            return ChatMessage(role, content)
        }
    }

    /// Calls a hook under the sandbox's limits. With `readBackFirst`, also returns the first
    /// argument as the hook left it (for hooks that edit tables in place).
    private func call(_ point: HookPoint, _ arguments: [LuaValue], results: Int32, readBackFirst: Bool = false)
        throws(LuaError) -> (results: [LuaValue], first: LuaValue?)
    {
        guard let reference = hookReference(point) else { return ([], nil) }
        return try withState { lua throws(LuaError) in
            let state = lua.pointer
            let top = lua_gettop(state)
            defer { lua_settop(state, top) }
            if readBackFirst, let first = arguments.first { lua.push(first) }
            lua_rawgeti(state, tide_lua_registryindex(), lua_Integer(reference))
            for (index, argument) in arguments.enumerated() {
                if index == 0 && readBackFirst { lua_pushvalue(state, top + 1) } else { lua.push(argument) }
            }
            try lua.call(arguments: Int32(arguments.count), results: results)
            let base = top + (readBackFirst ? 1 : 0)
            let values = (0..<results).map { lua.value(at: base + 1 + $0) }
            return (values, readBackFirst ? lua.value(at: top + 1) : nil)
        }
    }
}
