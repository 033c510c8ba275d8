import CLua
import CLuaShim
import TideCore

/// The five hooks of a reply, marshalled to and from Lua tables (shapes documented in
/// docs/plugins.md); the policy hooks on tool calls are in LuaPluginToolPolicy.swift.
extension LuaPlugin {
    public func onPrompt(_ prompt: inout PromptContext) throws -> PromptDecision {
        let messages = prompt.messages.map { LuaValue.table(array: [], fields: ["role": .string($0.role.rawValue),
                                                                                 "content": .string($0.content)]) }
        let argument = LuaValue.table(array: [], fields: ["messages": .table(array: messages, fields: [:]),
                                                          "params": Self.luaParameters(prompt.parameters)])
        let (results, edited) = try call(.prompt, [argument], results: 1, readBackFirst: true)
        if let answer = results.first?.string { return .answer(try Self.bounded(answer, from: .prompt, limit: Self.textLimit)) }
        guard let edited else { return .proceed }
        let parameters = try Self.parameters(from: edited["params"], over: prompt.parameters)
        let edits = try Self.messages(from: edited["messages"], over: prompt.messages)
        _ = try Self.bounded(edits.map(\.content).joined(), from: .prompt, limit: Self.textLimit)
        prompt.messages = edits
        prompt.parameters = parameters
        return .proceed
    }

    public func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
        guard let reference = hookReference(.logits) else { return }
        let view = viewReference
        try withLogits(logits) {
            try withState(at: .logits) { lua throws(LuaError) in
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

    public func shouldStop(_ reply: ReplyProgress) throws -> StopDecision {
        let results = try call(.stop, [Self.luaProgress(reply)], results: 2).results
        if let rewind = takeRequestedRewind() { return .rewind(rewind) }
        if let requested = takeRequestedStop() { return .stop(reason: requested) }
        guard results.first == .boolean(true) else { return .proceed }
        return .stop(reason: results.dropFirst().first?.string ?? "stop")
    }

    public func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision {
        var fields: [String: LuaValue] = ["text": .string(token.text), "index": .integer(Int64(token.index))]
        if let id = token.id { fields["id"] = .integer(Int64(id)) }
        if token.isFinal { fields["final"] = .boolean(true) }
        let result = try call(.token, [.table(array: [], fields: fields), Self.luaProgress(reply)], results: 1).results.first
        var decision = TokenDecision(stopReason: takeRequestedStop())
        switch result ?? .nil {
        case .nil, .boolean(true): break
        case .boolean(false): decision.replacement = ""
        case .string(let replacement): decision.replacement = try Self.bounded(replacement, from: .token, limit: Self.tokenTextLimit)
        case let other: throw LuaError(.runtime, "on_token must return nil, a string or false, not a \(other.typeName)")
        }
        return decision
    }

    public func onReply(_ reply: inout FinishedReply) throws {
        let statistics = reply.statistics
        let stats = LuaValue.table(array: [], fields: [
            "prompt_tokens": .integer(Int64(statistics.promptTokens)),
            "generated_tokens": .integer(Int64(statistics.generatedTokens)),
            "time_to_first_token": statistics.timeToFirstToken.map { .number($0.seconds) } ?? .nil,
            "tokens_per_second": statistics.tokensPerSecond.map { .number($0) } ?? .nil,
        ])
        let argument = LuaValue.table(array: [], fields: [
            "raw": .string(reply.rawText), "text": .string(reply.shownText), "stored": .string(reply.storedText),
            "stop_reason": .string(reply.stopReason.description), "stats": stats, "reasoning": .string(reply.reasoning),
        ])
        if let stored = try call(.reply, [argument], results: 1).results.first?.string {
            reply.storedText = try Self.bounded(stored, from: .reply, limit: Self.textLimit)
        }
        _ = takeRequestedStop()
    }

    /// The most text `on_token` may return in one call: a reply made of such pieces still grows
    /// by a bounded amount per token.
    static let tokenTextLimit = 1 << 20
    /// The most text `on_prompt` may leave in the messages or answer with, and `on_reply` may store.
    static let textLimit = 16 << 20

    /// `text`, if it is within `limit` bytes; else an error naming the hook.
    static func bounded(_ text: String, from point: HookPoint, limit: Int) throws(LuaError) -> String {
        guard text.utf8.count > limit else { return text }
        throw LuaError(.runtime, "\(point.rawValue) returned \(text.utf8.count) bytes of text; "
            + "it may return at most \(limit >> 20) MiB")
    }

    static func luaProgress(_ reply: ReplyProgress) -> LuaValue {
        .table(array: [], fields: ["text": .string(reply.text), "tokens": .integer(Int64(reply.tokenCount)),
                                   "elapsed": .number(reply.elapsed.seconds), "reasoning": .string(reply.reasoning)])
    }

    /// Every parameter under its field's name (`top_k`; one with no value, such as a random
    /// seed, is absent), and the reply format.
    public static func luaParameters(_ parameters: GenerationParameters) -> LuaValue {
        var fields: [String: LuaValue] = [:]
        for declaration in GenerationParameters.declarations {
            let value = luaValue(declaration.value(in: parameters))
            if value != .nil { fields[declaration.field] = value }
        }
        fields["format"] = luaFormat(parameters.format)
        return .table(array: [], fields: fields)
    }

    /// A parameter's value in Lua: whole numbers as integers, lists as arrays, maps as tables.
    static func luaValue(_ value: ParameterValue) -> LuaValue {
        switch value {
        case .null: .nil
        case .flag(let flag): .boolean(flag)
        case .number(let number): Int64(exactly: number).map(LuaValue.integer) ?? .number(number)
        case .text(let text): .string(text)
        case .list(let list): .table(array: list.map(luaValue), fields: [:])
        case .map(let map): .table(array: [], fields: map.mapValues(luaValue))
        }
    }

    /// A Lua value as a parameter's value; `nil` for a function or a table that was not copied.
    public static func parameterValue(_ value: LuaValue) -> ParameterValue? {
        switch value {
        case .nil: return .null
        case .boolean(let flag): return .flag(flag)
        case .integer(let number): return .number(Double(number))
        case .number(let number): return .number(number)
        case .string(let text): return .text(text)
        case .table(let array, let fields) where fields.isEmpty:
            let list = array.compactMap(parameterValue)
            return list.count == array.count ? .list(list) : nil
        case .table(let array, let fields) where array.isEmpty:
            let map = fields.compactMapValues(parameterValue)
            return map.count == fields.count ? .map(map) : nil
        default: return nil
        }
    }

    /// The parameters `on_prompt` left in `prompt.params`, over `base`. A value of the wrong
    /// type or out of range (checked by its declaration and ``GenerationParameters/validate()``)
    /// is an error that names the field.
    static func parameters(from value: LuaValue, over base: GenerationParameters) throws(LuaError) -> GenerationParameters {
        var parameters = base
        for declaration in GenerationParameters.declarations {
            let given = value[declaration.field]
            if given == .nil { continue }
            guard let converted = parameterValue(given) else {
                throw LuaError(.runtime, "on_prompt set prompt.params.\(declaration.field) to a \(given.typeName); "
                    + "it must be \(declaration.requirement)")
            }
            do {
                try declaration.set(converted, in: &parameters)
            } catch {
                throw LuaError(.runtime, "on_prompt set prompt.params.\(declaration.field) to \(shown(given)); "
                    + "it must be \(declaration.requirement)")
            }
        }
        parameters.format = try format(from: value["format"], over: base.format)
        do {
            try parameters.validate()
        } catch {
            throw LuaError(.runtime, "on_prompt set prompt.params.\(error.field) "
                + "to \(error.value); it must be \(error.requirement ?? "a parameter")")
        }
        return parameters
    }

    /// A value as an error shows it: a number as Lua prints it, a string in quotes, else its type.
    static func shown(_ value: LuaValue) -> String {
        switch value {
        case .integer(let number): "\(number)"
        case .number(let number): shown(number)
        case .string(let text): "'\(text)'"
        case .boolean(let flag): "\(flag)"
        default: "a \(value.typeName)"
        }
    }

    /// A number as Lua would print it: whole numbers without a fraction.
    static func shown(_ number: Double) -> String {
        if let whole = Int64(exactly: number) { return "\(whole)" }
        return number.isNaN ? "nan" : "\(number)"
    }

    /// The messages `on_prompt` left; one that is an original unchanged (its role and text, in
    /// order) keeps the original's tool calls and the call it answers (Lua sees roles and texts).
    static func messages(from value: LuaValue, over originals: [ChatMessage]) throws(LuaError) -> [ChatMessage] {
        guard case .table(let array, _) = value else {
            throw LuaError(.runtime, "on_prompt left prompt.messages as a \(value.typeName), not a list")
        }
        var next = 0
        return try array.enumerated().map { (index, entry) throws(LuaError) -> ChatMessage in
            guard let role = entry["role"].string.flatMap(ChatRole.init(rawValue:)), let content = entry["content"].string else {
                throw LuaError(.runtime, "on_prompt left message \(index + 1) without a role (system, user, assistant or tool) and a content string")
            }
            guard let match = originals[min(next, originals.count)...].firstIndex(where: { $0.role == role && $0.content == content })
            else { return ChatMessage(role, content) }
            next = match + 1
            return originals[match]
        }
    }

    /// Calls a hook under the sandbox's limits. With `readBackFirst`, also returns the first
    /// argument as the hook left it (for hooks that edit tables in place).
    func call(_ point: HookPoint, _ arguments: [LuaValue], results: Int32, readBackFirst: Bool = false)
        throws(LuaError) -> (results: [LuaValue], first: LuaValue?)
    {
        guard let reference = hookReference(point) else { return ([], nil) }
        return try withState(at: point) { lua throws(LuaError) in
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
