import CLua

/// Stock Lua 5.4: a plain `luaL_newstate` with every standard library, no sandbox.
enum StockLua {
    /// Runs `code` with `argument` as its `...` and returns the strings in the list it returns
    /// (nil if it fails).
    static func strings(returnedBy code: String, chunkName: String, argument: Int) -> [String]? {
        guard let state = luaL_newstate() else { return nil }
        defer { lua_close(state) }
        luaL_openlibs(state)
        let bytes = Array(code.utf8)
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { luaL_loadbufferx(state, $0.baseAddress, $0.count, chunkName, "t") }
        }
        guard loaded == LUA_OK else { return nil }
        lua_pushinteger(state, lua_Integer(argument))
        guard lua_pcallk(state, 1, 1, 0, 0, nil) == LUA_OK, lua_type(state, -1) == LUA_TTABLE else { return nil }
        return (0..<Int(lua_rawlen(state, -1))).map { index in
            lua_rawgeti(state, -1, lua_Integer(index + 1))
            defer { lua_settop(state, -2) }
            var length = 0
            guard let text = lua_tolstring(state, -1, &length) else { return "" }
            return text.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
        }
    }
}
