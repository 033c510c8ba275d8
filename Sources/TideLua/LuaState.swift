import CLua
import CLuaShim

/// One sandboxed Lua state (see CLuaShim): safe libraries only, a memory cap, and an
/// instruction budget and time limit on every call. Not thread-safe: one owner at a time.
///
/// ```swift
/// let lua = try LuaState(limits: LuaLimits())
/// let value = try lua.run("return 1 + 2", chunkName: "=example")  // .integer(3)
/// ```
public final class LuaState {
    let pointer: OpaquePointer
    /// The limits every call runs under.
    public let limits: LuaLimits
    /// The units of work every call so far has spent, summed, as the instruction budget counts
    /// them: what C code and allocations charged, and the VM instructions each ran — every one
    /// while ``countsEveryInstruction``, else in whole steps of a thousand.
    public private(set) var instructionsSpent: Int64 = 0
    /// Whether calls count every VM instruction they run (for traces and costs), rather than
    /// steps of a thousand: plain Lua code then runs a few times slower.
    public var countsEveryInstruction = false {
        didSet { tide_lua_count_exactly(pointer, countsEveryInstruction ? 1 : 0) }
    }

    /// Creates a fresh sandboxed state.
    public init(limits: LuaLimits = LuaLimits()) throws(LuaError) {
        guard let pointer = tide_lua_open(limits.memoryBytes) else {
            throw LuaError(.unavailable, "could not create a Lua state with \(limits.memoryBytes) bytes")
        }
        self.pointer = pointer
        self.limits = limits
    }

    deinit { tide_lua_close(pointer) }

    /// Loads and runs a text chunk; returns its first result.
    @discardableResult
    public func run(_ code: String, chunkName: String) throws(LuaError) -> LuaValue {
        try evaluate(code, chunkName: chunkName, arguments: [])
    }

    /// Loads a text chunk and calls it under the limits with `arguments` (its `...`); returns its
    /// first result.
    public func evaluate(_ code: String, chunkName: String, arguments: [LuaValue]) throws(LuaError) -> LuaValue {
        try load(code, chunkName: chunkName)
        for argument in arguments { push(argument) }
        try call(arguments: Int32(arguments.count), results: 1)
        defer { tide_lua_pop(pointer, 1) }
        return value(at: -1)
    }

    /// Checks that a text chunk compiles, without running it.
    public func compile(_ code: String, chunkName: String) throws(LuaError) {
        try load(code, chunkName: chunkName)
        tide_lua_pop(pointer, 1)
    }

    /// Compiles a text chunk and leaves it on the stack as a function.
    func load(_ code: String, chunkName: String) throws(LuaError) {
        let bytes = Array(code.utf8)
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { tide_lua_load(pointer, $0.baseAddress, $0.count, chunkName) }
        }
        guard status == LUA_OK else { throw popError(status: status, kind: status == LUA_ERRSYNTAX ? .syntax : nil) }
    }

    /// Calls the function below `arguments` values on the stack under the limits. On success
    /// `results` values are left on the stack; on failure nothing is.
    func call(arguments: Int32, results: Int32) throws(LuaError) {
        let status = tide_lua_pcall(pointer, arguments, results, limits.instructions, limits.time.seconds)
        instructionsSpent += tide_lua_last_spent(pointer)
        if tide_lua_took_outside(pointer) != 0 { OutsideReads.current?.note() }
        guard status == LUA_OK else { throw popError(status: status, kind: nil) }
    }

    private func popError(status: Int32, kind: LuaError.Kind?) -> LuaError {
        let message = string(at: -1) ?? "unknown Lua error (status \(status))"
        tide_lua_pop(pointer, 1)
        let limitKind: LuaError.Kind? = switch tide_lua_last_limit(pointer) {
        case TIDE_LIMIT_INSTRUCTIONS: .instructionBudget
        case TIDE_LIMIT_TIME: .timeLimit
        case TIDE_LIMIT_MEMORY: .memoryLimit
        default: nil
        }
        return LuaError(limitKind ?? kind ?? (status == LUA_ERRMEM ? .memoryLimit : .runtime), message)
    }

    /// The string at `index`, without converting numbers (which would change the stack).
    func string(at index: Int32) -> String? {
        guard lua_type(pointer, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let bytes = tide_lua_tostring(pointer, index, &length) else { return nil }
        return bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// Copies the value at `index` into Swift; tables are read raw (no metamethods), to a depth of
    /// ``copyDepth``, at most ``copyLimit`` values in all, and a table met again inside itself is
    /// not followed: those stay ``LuaValue/uncopied(_:)``, so a hostile table (one holding
    /// itself, or sharing one table at every level) costs a bounded copy.
    public func value(at index: Int32) -> LuaValue {
        var copy = TableCopy(remaining: Self.copyLimit)
        return value(at: index, copy: &copy)
    }

    /// How deep tables are copied.
    public static let copyDepth = 16
    /// How many values one copy holds at most.
    public static let copyLimit = 1 << 20

    /// What a copy has seen: the tables it is inside, and how many more values it may take.
    private struct TableCopy {
        var inside: [UnsafeRawPointer] = []
        var remaining: Int
        /// Whether it ran out: the tables it was inside are left out whole.
        var ranOut = false
    }

    private func value(at index: Int32, copy: inout TableCopy) -> LuaValue {
        guard copy.remaining > 0 else {
            copy.ranOut = true
            return .uncopied(.tooLarge)
        }
        copy.remaining -= 1
        switch lua_type(pointer, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(pointer, index) != 0)
        case LUA_TNUMBER:
            return lua_isinteger(pointer, index) != 0 ? .integer(lua_tointegerx(pointer, index, nil))
                : .number(lua_tonumberx(pointer, index, nil))
        case LUA_TSTRING: return .string(string(at: index) ?? "")
        case LUA_TTABLE:
            guard let identity = lua_topointer(pointer, index) else { return .uncopied(.tooLarge) }
            if copy.inside.contains(identity) { return .uncopied(.cycle) }
            guard copy.inside.count < Self.copyDepth else { return .uncopied(.tooDeep) }
            copy.inside.append(identity)
            defer { copy.inside.removeLast() }
            return table(at: index, copy: &copy)
        default: return .opaque(String(cString: lua_typename(pointer, lua_type(pointer, index))))
        }
    }

    private func table(at index: Int32, copy: inout TableCopy) -> LuaValue {
        let table = lua_absindex(pointer, index)
        // A key and a value per level of ``copyDepth``: more than the 20 slots Lua guarantees.
        _ = lua_checkstack(pointer, 3)
        var array: [LuaValue] = []
        let count = min(Int(lua_rawlen(pointer, table)), copy.remaining)
        for position in 0..<count {
            lua_rawgeti(pointer, table, lua_Integer(position + 1))
            array.append(value(at: -1, copy: &copy))
            tide_lua_pop(pointer, 1)
        }
        if count < Int(lua_rawlen(pointer, table)) { copy.ranOut = true }
        var fields: [String: LuaValue] = [:]
        lua_pushnil(pointer)
        while !copy.ranOut, lua_next(pointer, table) != 0 {
            if lua_type(pointer, -2) == LUA_TSTRING, let key = string(at: -2) {
                fields[key] = value(at: -1, copy: &copy)
            } else if lua_isinteger(pointer, -2) != 0, case let key = lua_tointegerx(pointer, -2, nil), key < 1 || key > count {
                // A whole-number key past the array part (`t[15043] = x`) is kept, as its digits.
                fields[String(key)] = value(at: -1, copy: &copy)
            }
            tide_lua_pop(pointer, copy.ranOut ? 2 : 1)
        }
        return copy.ranOut ? .uncopied(.tooLarge) : .table(array: array, fields: fields)
    }

    /// Pushes a Swift value onto the stack.
    public func push(_ value: LuaValue) {
        switch value {
        case .nil, .opaque, .uncopied: lua_pushnil(pointer)
        case .boolean(let flag): lua_pushboolean(pointer, flag ? 1 : 0)
        case .integer(let number): lua_pushinteger(pointer, number)
        case .number(let number): lua_pushnumber(pointer, number)
        case .string(let text):
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(pointer, $0.baseAddress, $0.count) }
            }
        case .table(let array, let fields):
            // Each level of a table inside a table holds stack slots while its elements are
            // pushed, and Lua guarantees only 20: make room (the depth is bounded where the value
            // comes from: JSON nests at most 256 deep, so the stack never nears Lua's maximum).
            _ = lua_checkstack(pointer, 3)
            lua_createtable(pointer, Int32(array.count), Int32(fields.count))
            for (position, element) in array.enumerated() {
                push(element)
                lua_rawseti(pointer, -2, lua_Integer(position + 1))
            }
            for (key, element) in fields {
                push(element)
                lua_setfield(pointer, -2, key)
            }
        }
    }

    /// Pushes `table[key]` for the table at `index`, raw: no metamethod runs, so reading a
    /// plugin's table outside a protected call cannot run its code or raise an error.
    func pushRawField(_ key: String, of index: Int32) {
        let table = lua_absindex(pointer, index)
        _ = key.withCString { lua_pushstring(pointer, $0) }
        lua_rawget(pointer, table)
    }

    /// Adds `tide._NAME`-style host function `name` to Tide's own `tide` table: a Lua function
    /// that passes its arguments to `function` with `context` (see CLuaShim's
    /// `tide_lua_add_host_function`). `context` must outlive the state's use of it.
    public func addHostFunction(_ name: String, _ function: tide_host_function, context: UnsafeMutableRawPointer) {
        tide_lua_add_host_function(pointer, name, function, context)
    }

    /// Calls `tide[name]`, a function of Tide's own `tide` table (which the state's code reaches
    /// only while the global `tide` points to it), with `arguments`, under the limits; returns
    /// its first result.
    public func callTideFunction(_ name: String, arguments: [LuaValue]) throws(LuaError) -> LuaValue {
        tide_lua_push_tide(pointer)
        pushRawField(name, of: -1)
        lua_rotate(pointer, -2, 1)
        tide_lua_pop(pointer, 1)
        for argument in arguments { push(argument) }
        try call(arguments: Int32(arguments.count), results: 1)
        defer { tide_lua_pop(pointer, 1) }
        return value(at: -1)
    }

    /// Sets `tide[key] = value` in Tide's own `tide` table (for example `tide.options`), raw: no
    /// metamethod runs and nothing a plugin did to the global `tide` can make it fail, since this
    /// runs outside any protected call.
    public func setTideField(_ key: String, to value: LuaValue) {
        tide_lua_push_tide(pointer)
        _ = key.withCString { lua_pushstring(pointer, $0) }
        push(value)
        lua_rawset(pointer, -3)
        tide_lua_pop(pointer, 1)
    }
}
