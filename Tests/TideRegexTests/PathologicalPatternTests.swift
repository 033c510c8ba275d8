import Testing
import TideRegex

/// Patterns that make a backtracking engine take exponential time finish in linear time here;
/// a budget bounds the rest. The bounds are generous (a debug build on a busy machine), far below
/// what backtracking needs: `(x+x+)+y` on 30 characters would take hours.
@Suite struct PathologicalPatternTests {
    static func seconds(_ work: () throws -> Void) rethrows -> Double {
        let elapsed = try ContinuousClock().measure(work)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test(arguments: [
        ("(x+x+)+y", String(repeating: "x", count: 30)),
        ("(a+)+$", String(repeating: "a", count: 100_000) + "!"),
        ("(a|a)*b", String(repeating: "a", count: 100_000)),
        ("(a*)*b", String(repeating: "a", count: 100_000)),
        ("(.*a){20}", String(repeating: "a", count: 19) + String(repeating: "b", count: 10_000)),
        ("(?i)(\\w+\\s?)+$", String(repeating: "word ", count: 10_000) + "!"),
    ])
    func finishesQuicklyWithoutAMatch(pattern: String, text: String) throws {
        let compiled = try Pattern(pattern)
        var match: Match?
        let elapsed = try Self.seconds { match = try compiled.firstMatch(in: text) }
        print("\(pattern) on \(text.unicodeScalars.count) scalars: \(elapsed) s")
        #expect(match == nil)
        #expect(elapsed < 20)
    }

    @Test func aMatchIsStillFoundAfterALongNearMiss() throws {
        let text = String(repeating: "x", count: 10_000) + "y"
        let match = try #require(try Pattern("(x+x+)+y").firstMatch(in: text))
        #expect(match.range == text.startIndex..<text.endIndex)
    }

    @Test func aStepLimitStopsTheMatch() throws {
        let pattern = try Pattern("(a|a)*b")
        let text = String(repeating: "a", count: 10_000)
        do throws(MatchTooCostly) {
            _ = try pattern.firstMatch(in: text, budget: MatchBudget(maximumSteps: 100_000))
            Issue.record("the match should have stopped")
        } catch {
            #expect(error.reason == .steps && error.steps > 100_000 && error.textLength == 10_000)
        }
        // The same text with room enough, and with no room to spare at all.
        #expect(try pattern.firstMatch(in: text, budget: MatchBudget(maximumSteps: 10_000_000)) == nil)
        #expect(try pattern.firstMatch(in: text, budget: MatchBudget(maximumSteps: Int.max)) == nil)
        // A small limit holds on a short text too, not a few thousand steps later.
        #expect(throws: MatchTooCostly.self) { try pattern.matches(String(repeating: "a", count: 40), budget: MatchBudget(maximumSteps: 10)) }
    }

    @Test func aPassedDeadlineStopsTheMatch() throws {
        let pattern = try Pattern("(a|a)*b")
        let text = String(repeating: "a", count: 100_000)
        do throws(MatchTooCostly) {
            _ = try pattern.matches(text, budget: MatchBudget(deadline: .now))
            Issue.record("the match should have stopped")
        } catch {
            #expect(error.reason == .deadline && error.textLength == 100_000)
        }
    }

    @Test func aCancelledTaskStopsTheMatch() async throws {
        let pattern = try Pattern("(a|a)*b")
        let text = String(repeating: "a", count: 100_000)
        let task = Task { () -> MatchTooCostly? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(MatchTooCostly) {
                _ = try pattern.matches(text)
                return nil
            } catch {
                return error
            }
        }
        #expect(await task.value?.reason == .cancelled)
    }
}
