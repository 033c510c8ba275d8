import Testing
import TideLua

@Suite struct LuaSandboxTests {
    let limits = LuaLimits(instructions: 1_000_000, memoryBytes: 8 << 20, time: .seconds(2))

    func run(_ code: String) throws(LuaError) -> LuaValue {
        try LuaState(limits: limits).run(code, chunkName: "=test")
    }

    func failure(_ code: String) -> LuaError? {
        do {
            _ = try run(code)
            return nil
        } catch {
            return error
        }
    }

    @Test func ordinaryCodeRuns() throws {
        #expect(try run("return 1 + 2") == .integer(3))
        #expect(try run("return ('%d sentences'):format(2)") == .string("2 sentences"))
        #expect(try run("return utf8.len('café')") == .integer(4))
        #expect(try run("return #table.concat({'a','b'}, ',')") == .integer(3))
        #expect(try run("return type(os.clock()) == 'number' and type(os.time()) == 'number'") == .boolean(true))
        #expect(try run("return load('return 40 + 2')()") == .integer(42))
        #expect(try run("return {1, 2, name = 'x'}") == .table(array: [.integer(1), .integer(2)],
                                                                 fields: ["name": .string("x")]))
    }

    /// What depends on when and where it runs is noted for the task that observes it; what the
    /// arguments alone decide is not, and the functions still work.
    @Test(arguments: [("return os.time()", true), ("return os.clock()", true), ("return os.date('%Y')", true),
                      ("return math.random(6)", true), ("math.randomseed(7) return 1", true),
                      ("return os.time({year = 2026, month = 1, day = 1, hour = 12})", false),
                      ("return os.date('!%Y', 0)", false), ("return math.floor(2.5) + #('abc')", false)])
    func readsOfTheClockAndRandomNumbersAreNoted(code: String, noted: Bool) async throws {
        let reads = OutsideReads()
        let value = try await reads.observe { try run(code) }
        #expect(value != .nil)
        #expect(reads.happened == noted, "\(code)")
        if noted { #expect(try run("return os.date('!%Y', 0)") == .string("1970")) }
    }

    @Test func readsAreNotedOnlyInTheTaskObserved() async throws {
        let reads = OutsideReads()
        _ = try run("return os.time()")
        _ = await reads.observe { 0 }
        #expect(!reads.happened)
    }

    @Test(arguments: ["io", "debug", "package", "require", "dofile", "loadfile", "coroutine", "print"])
    func dangerousGlobalsAreAbsent(name: String) throws {
        #expect(try run("return \(name) == nil") == .boolean(true))
    }

    @Test(arguments: ["execute", "remove", "rename", "getenv", "exit", "tmpname"])
    func onlyTheSafePartOfOsRemains(name: String) throws {
        #expect(try run("return os.\(name) == nil") == .boolean(true))
    }

    @Test func attemptsToReachTheSystemFailWithClearErrors() {
        #expect(failure("io.open('/etc/passwd')")?.message.contains("attempt to index a nil value (global 'io')") == true)
        #expect(failure("os.execute('true')")?.message.contains("attempt to call a nil value (field 'execute')") == true)
        #expect(failure("require 'os'")?.message.contains("global 'require'") == true)
        #expect(failure("package.loadlib('libc.so.6', 'system')")?.message.contains("global 'package'") == true)
        #expect(failure("debug.sethook(print, 'l')")?.message.contains("global 'debug'") == true)
        #expect(failure("coroutine.yield()")?.message.contains("global 'coroutine'") == true)
    }

    @Test func binaryChunksAreRefused() throws {
        #expect(try run("return string.dump == nil") == .boolean(true))
        let result = try run(#"local f, err = load("\27Lua\84\0", "x", "b"); return err"#)
        #expect(result.string?.contains("attempt to load a binary chunk") == true)
    }

    @Test func anEndlessLoopHitsTheInstructionBudget() {
        let error = failure("while true do end")
        #expect(error?.kind == .instructionBudget)
        #expect(error?.message.contains("instruction budget exceeded") == true)
        #expect(error?.message.contains("stack traceback") == true)
    }

    @Test func pcallCannotSwallowALimit() {
        let error = failure("while true do pcall(function() while true do end end) end")
        #expect(error?.kind == .instructionBudget)
    }

    @Test func theWallClockLimitCatchesSlowCode() {
        let slow = LuaLimits(instructions: 0, memoryBytes: 8 << 20, time: .milliseconds(100))
        do {
            try LuaState(limits: slow).run("local t = os.clock() while os.clock() - t < 10 do end", chunkName: "=slow")
            Issue.record("slow code was not stopped")
        } catch {
            #expect(error.kind == .timeLimit)
            #expect(error.message.contains("wall-clock limit of 0.1 s exceeded before the instruction budget: the machine may be busy"),
                    "\(error.message)")
        }
    }

    @Test func hugeStringsAndGrowingTablesHitTheMemoryCap() {
        let rep = failure(#"return string.rep("x", 1e10)"#)
        #expect(rep != nil)
        let grow = failure("local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(64) .. i end")
        #expect(grow?.kind == .memoryLimit)
    }

    @Test func theStateIsUsableAfterAnError() throws {
        let lua = try LuaState(limits: limits)
        #expect(throws: LuaError.self) { try lua.run("local t = {} for i = 1, 1e9 do t[i] = i end", chunkName: "=grow") }
        #expect(try lua.run("return 'still here'", chunkName: "=after") == .string("still here"))
    }

    @Test func errorsWithoutAMessageAreStillReported() {
        #expect(failure("error({})")?.message.hasPrefix("(error object is a table value)") == true)
        #expect(failure("error(nil)")?.message.hasPrefix("(error object is a nil value)") == true)
        #expect(failure("error(setmetatable({}, {__tostring = function() return 'custom' end}))")?.message
            .hasPrefix("custom") == true)
    }

    @Test func finalizersAreRefused() {
        #expect(failure("setmetatable({}, {__gc = function() while true do end end})")?.message
            .contains("__gc metamethods are not allowed") == true)
    }

    @Test func syntaxErrorsSayWhere() {
        let error = failure("return 1 +")
        #expect(error?.kind == .syntax)
        #expect(error?.message.contains("test:1:") == true)
    }

    @Test func statesDoNotShareGlobalsOrMetatables() throws {
        let first = try LuaState(limits: limits)
        let second = try LuaState(limits: limits)
        try first.run("getmetatable('').__index.upper = function() return 'hacked' end; shared = 1", chunkName: "=a")
        #expect(try first.run("return ('x'):upper()", chunkName: "=a") == .string("hacked"))
        #expect(try second.run("return ('x'):upper()", chunkName: "=b") == .string("X"))
        #expect(try second.run("return shared", chunkName: "=b") == .nil)
    }

    @Test func valuesRoundTrip() throws {
        let lua = try LuaState(limits: limits)
        let value = LuaValue.table(array: [.string("é☕"), .number(0.5), .boolean(true)],
                                   fields: ["n": .integer(7), "nested": .table(array: [], fields: ["k": .string("v")])])
        lua.push(value)
        #expect(lua.value(at: -1) == value)
    }
}
