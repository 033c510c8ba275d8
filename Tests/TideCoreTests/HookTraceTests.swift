import Synchronization
import Testing
@testable import TideCore
import TideTestSupport

/// The trace of hook calls (`--trace-hooks`) and the costs per plugin and hook, on a scripted
/// backend: every call recorded as it ends, with where it stood, what it was given and decided.
@Suite struct HookTraceTests {
    /// Keeps every record.
    final class Collected: HookTrace {
        private let records = Mutex<[HookCall]>([])
        func record(_ call: HookCall) { records.withLock { $0.append(call) } }
        var calls: [HookCall] { records.withLock { $0 } }
    }

    @Test func everyCallIsRecordedWithItsPositionWhatItWasGivenAndWhatItDecided() async throws {
        let trace = Collected()
        let hook = TestHook("stopper", [.prompt, .stop, .token, .reply], journal: Journal(),
                            stop: { $0.text.hasSuffix("b") ? "saw b" : nil },
                            token: { token, _ in token.text == "a" ? .replace("A") : .pass })
        let session = ChatSession(backend: ScriptedBackend(["a", "b", "c"]), hooks: [hook])
        session.hookTrace = trace
        let reply = try await session.reply(to: "go").collect()
        #expect(reply.texts.joined() == "Ab")
        let calls = trace.calls
        #expect(calls.map(\.hook) == [.prompt, .stop, .token, .stop, .token, .token, .reply])
        #expect(calls.map(\.position) == [nil, 0, 0, 1, 1, 2, nil])
        #expect(calls.allSatisfy { $0.plugin == "stopper" && $0.instructions == nil && $0.microseconds >= 0 })
        #expect(calls[0].given == "1 messages, the last \"go\"")
        #expect(calls[0].outcome == "proceed")
        #expect(calls[1].given == "\"a\"" && calls[1].outcome == "proceed")
        #expect(calls[2].outcome == "replace with \"A\"")
        #expect(calls[3].given == "\"ab\"" && calls[3].outcome == "stop: saw b")
        #expect(calls[5].given == "\"\" (final)" && calls[5].outcome == "pass")
        #expect(calls[6].given == "2 bytes shown, plugin:stopper: saw b" && calls[6].outcome == "stored as it was")
        #expect(calls[3].line.hasPrefix("stopper should_stop #1 \"ab\" → stop: saw b ("), "\(calls[3].line)")

        let costs = try #require(reply.summary?.statistics.hookCosts)
        #expect(costs.map(\.hook) == [.prompt, .stop, .token, .reply])
        #expect(costs.map(\.calls) == [1, 2, 3, 1])
        #expect(costs.allSatisfy { $0.plugin == "stopper" && $0.instructions == nil })
    }

    @Test func rewindsLogitsDecisionsAndFailuresAreTraced() async throws {
        let trace = Collected()
        let picky = TestHook("picky", [.logits], journal: Journal(), logits: { view in
            view.bias(5, by: 2)
            view.ban(7)
        })
        let broken = TestHook("broken", [.token], journal: Journal(), token: { _, _ in throw Boom() })
        let session = ChatSession(backend: ScriptedBackend(["The", " bad", " word"]),
                                  hooks: [RewindTests.PhraseBan("bad"), picky, broken])
        session.hookTrace = trace
        let reply = try await session.reply(to: "Hi").collect()
        #expect(reply.summary?.statistics.rewinds == 1)
        let calls = trace.calls
        let rewind = try #require(calls.first { $0.outcome.hasPrefix("rewind") })
        #expect(rewind.plugin == "phrase-ban" && rewind.hook == .stop && rewind.position == 1)
        #expect(rewind.outcome == "rewind to byte 4, taking back \"bad\"")
        let logits = calls.filter { $0.hook == .logits }
        #expect(!logits.isEmpty && logits.allSatisfy { $0.outcome == "biased 1 (5 +2.0), banned 1 (7)" })
        #expect(logits.map(\.position) == [0, 1, 1, 2], "one call a position sampled, the rewound one again")
        let failed = calls.filter { $0.plugin == "broken" }
        #expect(failed.count == 1, "a failing hook is disabled after its failure")
        #expect(failed.first?.outcome == "failed: boom")
    }

    @Test func costsAreCountedWithoutATraceAndATextIsExcerpted() async throws {
        let hook = TestHook("counter", [.stop], journal: Journal())
        let session = ChatSession(backend: ScriptedBackend(["x", "y", "z", "w"]), hooks: [hook])
        let reply = try await session.reply(to: "go").collect()
        let cost = try #require(reply.summary?.statistics.hookCosts?.first)
        #expect(cost.calls == 4 && cost.hook == .stop)
        #expect(try await ChatSession(backend: ScriptedBackend(["x"])).reply(to: "go").collect().summary?.statistics.hookCosts == nil)

        let long = String(repeating: "é", count: 60) + "\n"
        #expect(HookCall.excerpt(long) == "\"" + String(repeating: "é", count: 48) + "\"…")
        #expect(HookCall.excerpt(long, end: true) == "…\"" + String(repeating: "é", count: 47) + "\\n\"")
        #expect(HookCostTable.lines([], tokens: 3, replyTime: .seconds(1)).isEmpty)
        let table = HookCostTable.lines([HookCost(plugin: "p", hook: .stop, calls: 4, instructions: 12_345, duration: .microseconds(2500))],
                                        tokens: 4, replyTime: .milliseconds(100))
        #expect(table == ["plugin  hook         calls  instructions  per token  time    per token  share",
                          "p       should_stop  4      12,345        3,086      2.5 ms  625.0 µs   2.50 %"])
    }
}
