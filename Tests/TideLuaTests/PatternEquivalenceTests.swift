import Testing
import TideLua

/// The sandbox's string.find, match, gmatch and gsub (its own matcher, which charges its steps
/// to the call's budget) against stock Lua's on thousands of random patterns and subjects.
@Suite struct PatternEquivalenceTests {
    static let cases = 6000

    @Test func resultsAndErrorsMatchStockLua() throws {
        let stock = try #require(StockLua.strings(returnedBy: PatternCases.chunk, chunkName: "=cases", argument: Self.cases))
        let unlimited = LuaLimits(instructions: 0, memoryBytes: 64 << 20, time: .zero)
        let lua = try LuaState(limits: unlimited)
        let value = try lua.evaluate(PatternCases.chunk, chunkName: "=cases", arguments: [.integer(Int64(Self.cases))])
        guard case .table(let array, _) = value else {
            Issue.record("the cases returned \(value)")
            return
        }
        let sandbox = array.map { $0.string ?? "" }
        #expect(sandbox.count == stock.count)
        #expect(stock.count >= 5000)
        let differing = zip(sandbox, stock).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(differing.isEmpty, "\(differing.count) cases differ; first: sandbox \(differing.first?.element.0 ?? "") / stock \(differing.first?.element.1 ?? "")")
        // The cases do reach the errors and limits they are meant to.
        for message in ["malformed pattern (missing ']')", "malformed pattern (ends with '%')", "invalid capture index %",
                        "invalid pattern capture", "pattern too complex", "too many captures", "unfinished capture",
                        "invalid replacement value (a table)", "invalid use of '%' in replacement string",
                        "missing '[' after '%f' in pattern", "missing arguments to '%b'"] {
            #expect(stock.contains { $0.contains(message) }, "no case reaches \(message)")
        }
    }
}
