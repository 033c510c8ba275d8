import Testing
import TideCore
import TideLua
import TideTestSupport

/// Every VM instruction a call runs is counted when asked (the figure traces and costs show), on
/// any CPU the same; not asked, a plugin reports none; either way the budget stops what runs too long.
@Suite struct InstructionCountTests {
    /// The instructions one run of a loop of `count` additions spends.
    func spent(looping count: Int) throws -> Int64 {
        let lua = try LuaState(limits: LuaLimits(instructions: 10_000_000, memoryBytes: 8 << 20, time: .seconds(5)))
        lua.countsEveryInstruction = true
        let before = lua.instructionsSpent
        _ = try lua.run("local s = 0 for i = 1, \(count) do s = s + i end return s", chunkName: "=count")
        return lua.instructionsSpent - before
    }

    @Test func aCallsInstructionsAreCountedExactly() throws {
        let (ten, hundred, thousand) = (try spent(looping: 10), try spent(looping: 100), try spent(looping: 1000))
        #expect(ten > 0)
        #expect(try spent(looping: 10) == ten, "the same code spends the same count")
        // A loop spends the same instructions a turn: the count grows by exactly as much per turn.
        #expect((thousand - hundred) == (hundred - ten) * 10, "\(ten) \(hundred) \(thousand)")
        #expect(hundred - ten < 900, "a few instructions a turn, not the budget's steps of 1,000")
    }

    @Test func aPluginsHookCallsAreCostedByTheirInstructions() async throws {
        let source = """
            return { name = "looper", should_stop = function(reply)
              local n = 0
              for i = 1, 50 do n = n + i end
              return false
            end }
            """
        let plugin = try LuaPlugin(source: source, path: "looper.lua")
        let session = ChatSession(backend: ScriptedBackend(["a", "b", "c"]), hooks: [plugin])
        let uncounted = try #require(try await session.reply(to: "go").collect().summary?.statistics.hookCosts?.first)
        #expect(uncounted.calls == 3 && uncounted.instructions == nil, "not asked, not counted")
        session.countsInstructions = true
        let reply = try await session.reply(to: "go").collect()
        let cost = try #require(reply.summary?.statistics.hookCosts?.first)
        #expect(cost.plugin == "looper" && cost.hook == .stop && cost.calls == 3)
        let instructions = try #require(cost.instructions)
        #expect(instructions % 3 == 0 && instructions / 3 > 50, "each call spends the same count: \(instructions)")
    }

    @Test(arguments: [false, true]) func theBudgetStopsALoopCountedEitherWay(exactly: Bool) throws {
        let lua = try LuaState(limits: LuaLimits(instructions: 5_000, memoryBytes: 8 << 20, time: .seconds(5)))
        lua.countsEveryInstruction = exactly
        #expect(throws: LuaError.self) { _ = try lua.run("while true do end", chunkName: "=spin") }
        #expect(lua.instructionsSpent == 5_000)
        #expect(try lua.run("local s = 0 for i = 1, 100 do s = s + i end return s", chunkName: "=sum") == .integer(5050))
    }
}
