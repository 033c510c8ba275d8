import TideLua

/// An `expect-lua:` check: a Lua expression (or statements ending in `return`) evaluated in the
/// plugin sandbox, with `reply`, `tokens`, `stop_reason` and `user` in scope.
struct LuaPredicate: Sendable {
    /// The chunk that is run: the names bound on the first line, so Lua's line numbers match.
    let chunk: String
    let limits: LuaLimits

    private static let bindings = "local reply, tokens, stop_reason, user = ...; "

    /// Compiles `code`, as an expression if it is one, else as statements.
    init(_ code: String, limits: LuaLimits) throws(LuaError) {
        self.limits = limits
        let state = try LuaState(limits: limits)
        let expression = Self.bindings + "return (" + code + "\n)"
        do {
            try state.compile(expression, chunkName: "=expect-lua")
            chunk = expression
        } catch {
            let statements = Self.bindings + code
            guard (try? state.compile(statements, chunkName: "=expect-lua")) != nil else { throw error }
            chunk = statements
        }
    }

    /// Whether the predicate holds for a reply: any result but `nil` and `false` is true.
    func holds(reply: String, tokens: Int, stopReason: String, user: String) throws(LuaError) -> Bool {
        let state = try LuaState(limits: limits)
        let result = try state.evaluate(chunk, chunkName: "=expect-lua",
                                        arguments: [.string(reply), .integer(Int64(tokens)), .string(stopReason), .string(user)])
        return result != .nil && result != .boolean(false)
    }
}
