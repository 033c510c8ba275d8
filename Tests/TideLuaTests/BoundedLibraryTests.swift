import Foundation
import Testing
import TideLua

/// The sandbox's replacements for library functions that loop in C: same results and errors as
/// stock Lua, and stopped by the call's instruction budget like any loop, on any machine however
/// busy (the wall-clock guard is far off).
@Suite struct BoundedLibraryTests {
    static let unlimited = LuaLimits(instructions: 0, memoryBytes: 64 << 20, time: .zero)
    static let budget = LuaLimits(instructions: 10_000_000, memoryBytes: 64 << 20, time: .seconds(120))

    @Test func resultsAndErrorsMatchStockLua() throws {
        let stock = try #require(StockLua.strings(returnedBy: LibraryCases.chunk, chunkName: "=cases", argument: 0))
        guard case .table(let array, _) = try LuaState(limits: Self.unlimited).run(LibraryCases.chunk, chunkName: "=cases") else {
            Issue.record("the cases did not return a list")
            return
        }
        let sandbox = array.map { $0.string ?? "" }
        #expect(sandbox.count == stock.count)
        for (mine, theirs) in zip(sandbox, stock) { #expect(mine == theirs) }
    }

    @Test func anEmptyRepetitionIsImmediate() throws {
        // Stock string.rep copies nothing 10^15 times.
        let small = LuaLimits(instructions: 10_000, memoryBytes: 64 << 20, time: .seconds(120))
        #expect(try LuaState(limits: small).run("return string.rep('', 1e15, '')", chunkName: "=rep") == .string(""))
    }

    /// Reading a long buffer a few bytes at a time, a common use of string.unpack, stays within
    /// the budget: a call is charged its format, not the whole buffer.
    @Test func unpackingALongBufferPieceByPieceFitsTheBudget() throws {
        let lua = try LuaState(limits: LuaLimits())
        let total = try lua.run("""
            local data = string.rep(string.pack('<I4', 7), 250000)
            local sum, position = 0, 1
            for _ = 1, 20000 do
              local value
              value, position = string.unpack('<I4', data, position)
              sum = sum + value
            end
            return sum
            """, chunkName: "=unpack")
        #expect(total == .integer(140_000))
    }

    /// Each body spends its time inside one library call, or in calls so long that the hook
    /// (every 1000 VM instructions) would fire only after seconds. A first call builds the
    /// inputs (`grow(unit, n)` doubles a string); the body runs in a second call and must be
    /// stopped by its instruction budget: the work is counted, so the stop does not depend on
    /// the machine's speed or load.
    @Test(arguments: [
        ("s = grow('a', 30000)", "string.find(s, '.-.-.-.-.-.-.-.-.-.-b')"),
        ("s = grow('(', 200000)", "s:gsub('%b()', '')"),
        ("s = grow('a', 2e7) n = grow('a', 1e5) .. 'b'", "s:find(n, 1, true)"),
        ("s = grow('a', 8e6)", "while true do local t = s .. 'b' end"),
        ("", "while true do local t = ('ab'):rep(2e6, ',') end"),
        ("s = grow('aB', 4e6)", "while true do local t = s:upper() local u = s:lower() local v = s:reverse() end"),
        ("s = grow('a', 9e5)", "while true do local t = {s:byte(1, -1)} end"),
        ("s = grow('a\\0', 4e6)", "while true do local t = string.format('%q', s) end"),
        ("t = {} for i = 1, 1e5 do t[i] = i end f = grow('%d', 2e5)", "while true do local x = string.format(f, table.unpack(t)) end"),
        ("t = {} for i = 1, 2e5 do t[i] = 'w' end", "while true do local x = table.concat(t, ',') end"),
        ("t = {} for i = 1, 2e5 do t[i] = (i * 7919) % 200000 end", "while true do table.sort(t) end"),
        ("t = {} for i = 1, 2e5 do t[i] = i end", "while true do table.insert(t, 1, 0) table.remove(t, 1) end"),
        ("", "table.move({}, 1, 1e12, 1)"),
        ("t = {} for i = 1, 1e5 do t[i] = 0x4E00 + i % 1000 end", "while true do local x = utf8.char(table.unpack(t)) end"),
        ("s = grow('é', 8e6)", "while true do local n = utf8.len(s) end"),
        ("s = grow('é', 8e6)", "while true do local n = utf8.offset(s, 3e6) end"),
        ("f = grow('b', 1e5) s = grow('x', 1e5)", "while true do local t = {string.unpack(f, s)} end"),
        ("chunk = 'return ' .. grow('1 + ', 4e6) .. '1'", "while true do load(chunk) end"),
        // A long literal run is compared one character at a time at every start position.
        ("s = grow('a', 1e6) p = grow('a', 1e5) .. '.b'", "s:find(p)"),
        // A long set is scanned at every character it is tried on.
        ("s = grow('z', 1e5) p = '[' .. grow('a', 1e6) .. 'z]*q'", "s:find(p)"),
    ])
    func longWorkInCIsStoppedByTheBudget(setup: String, body: String) throws {
        let lua = try LuaState(limits: Self.budget)
        try lua.run("function grow(unit, n) local s = unit while #s < n do s = s .. s end return s:sub(1, n) end \(setup)",
                    chunkName: "=setup")
        do {
            try lua.run(body, chunkName: "=hostile")
            Issue.record("\(body) was not stopped")
        } catch {
            #expect(error.kind == .instructionBudget, "\(error.kind): \(error.message)")
        }
    }

    /// Comparing two long strings is one VM instruction that Tide cannot count: the wall-clock
    /// guard stops it, and says that the machine may be busy.
    @Test func uncountedWorkIsStoppedByTheWallClockGuard() throws {
        let lua = try LuaState(limits: LuaLimits(instructions: 10_000_000, memoryBytes: 64 << 20, time: .seconds(2)))
        // Two equal strings of 8 MiB, built by a few copies (quick even in a debug build).
        try lua.run("a = 'a' while #a < 2^23 do a = a .. a end b = a:sub(1, -2) .. 'a'", chunkName: "=setup")
        do {
            try lua.run("while true do local same = a == b end", chunkName: "=compare")
            Issue.record("the comparisons were not stopped")
        } catch {
            #expect(error.kind == .timeLimit, "\(error.kind): \(error.message)")
            #expect(error.message.hasPrefix("wall-clock limit of 2 s exceeded before the instruction budget: "
                + "the machine may be busy, or the hook waits on work Tide does not count (--plugin-timeout sets the limit)"),
                "\(error.message)")
        }
    }
}
