import Testing
import TideCore
import TideFormat
@testable import TideLlama
import TideTestSupport

/// The window arithmetic of `--context-overflow shift`, apart from any model.
@Suite struct ContextWindowTests {
    @Test func aPromptThatFitsDropsNothing() throws {
        let window = try #require(ContextWindow(length: 100, kept: 10, room: 200))
        #expect(!window.shifts && window.dropped == 0 && window.step == 95)
        #expect(window.tokens(of: Array(0..<100)) == Array(0..<100))
    }

    @Test func aLongerPromptDropsWholeStepsAfterTheKeptTokens() throws {
        let prompt = Array(Int32(0)..<1000)
        let window = try #require(ContextWindow(length: prompt.count, kept: 10, room: 210))
        #expect(window.step == 100 && window.dropped == 800)
        let held = window.tokens(of: prompt)
        #expect(held.count <= 210 && held.count > 210 - window.step)
        #expect(held.prefix(10) == prompt.prefix(10) && held.last == 999 && held[10] == 810)
    }

    @Test func theWindowOfAGrowingConversationContinuesTheLastOne() throws {
        // One more turn: the window drops the same tokens, or a step more; the cache's shift
        // makes it the start of the new one.
        let before = try #require(ContextWindow(length: 1000, kept: 10, room: 210))
        let after = try #require(ContextWindow(length: 1050, kept: 10, room: 210))
        #expect(after.shift(from: before) == 100)
        let shift = try #require(CacheShift(to: after, from: before))
        let cached = before.tokens(of: Array(0..<1000))
        let shifted = shift.tokens(after: cached)
        #expect(Array(after.tokens(of: Array(0..<1050)).prefix(shifted.count)) == shifted)
        #expect(CacheShift(to: before, from: before) == nil)
        #expect(CacheShift(to: before, from: after) == nil, "a window that drops fewer tokens is not reached by a shift")
    }

    @Test func nothingFitsWhenTheKeptTokensFillTheRoom() {
        #expect(ContextWindow(length: 500, kept: 200, room: 201) == nil)
    }
}

extension RealModelTests {
    @Suite struct ContextShiftTests {
        /// A user message of about 600 tokens, its words different at each turn (numbered from 10
        /// on, every note the same length).
        static func message(_ turn: Int) -> String {
            "Note \(turn + 10): " + (0..<100).map { "item\(turn + 10)-\($0)" }.joined(separator: " ")
        }

        /// A reply the grammar makes certain: "ok".
        static let ok = ReplyFormat.exactly("ok")

        @Test func aConversationTenTimesTheContextKeepsAnsweringWithoutReadingItAgain() async throws {
            let system = "You are a helpful assistant. Answer every note with ok."
            let (session, backend) = try TestModel.session(contextSize: 2048, system: system, overflow: .shift) {
                $0.maxTokens = 8
                $0.format = Self.ok
            }
            // Twenty-six notes answered earlier (the first turn holds the end of them), then
            // eight asked now: each new one is read, what the cache held is shifted, not read again.
            for turn in 0..<26 { session.history += [ChatMessage(.user, Self.message(turn)), ChatMessage(.assistant, "ok")] }
            var evaluated: [Int] = []
            for turn in 26..<34 {
                let reply = try await session.reply(to: Self.message(turn)).collect()
                let statistics = try #require(reply.summary?.statistics)
                #expect(reply.text == "ok", "turn \(turn)")
                #expect(reply.summary?.stopReason == .endOfGeneration, "turn \(turn)")
                #expect(statistics.promptTokens <= 2048 - 8, "turn \(turn): the window leaves room for the answer")
                evaluated.append(statistics.evaluatedPromptTokens)
            }
            let whole = try backend.promptTokens(for: session.history)
            #expect(whole.count > 20_000)
            // A later turn reads its note (and the end of the answer before it) alone.
            let note = try backend.promptTokens(for: [ChatMessage(.user, Self.message(0))]).count
            #expect(evaluated.dropFirst().allSatisfy { $0 <= note }, "\(evaluated), a note \(note) tokens")
            // The cache holds the system prompt's tokens first, then the conversation's end;
            // some turn shifted it.
            let systemTokens = try backend.promptTokens(for: [ChatMessage(.system, system)])
            let (held, window) = backend.cache.withLock { ($0.kept.tokens, $0.kept.window) }
            let kept = try #require(window?.kept)
            #expect(kept > 10 && held.prefix(kept) == systemTokens.prefix(kept))
            #expect(held.count <= 2048 && window!.dropped > 16_000)
            #expect(session.history.count == 69)
        }

        @Test func aReplyPastTheContextsEndShiftsAndGoesOn() async throws {
            // Letters and spaces, never an end: the reply runs to max-tokens, whatever its words.
            let letters = try ReplyFormat.grammar("root ::= [a-z ]+")
            func reply(_ policy: ContextOverflowPolicy) async throws -> (CollectedReply, LlamaBackend) {
                let (session, backend) = try TestModel.session(contextSize: 256, hooks: [NoEnd()], overflow: policy) {
                    $0.maxTokens = 300
                    $0.format = letters
                }
                return (try await session.reply(to: "Write about the sea.").collect(), backend)
            }
            let (shifted, backend) = try await reply(.shift)
            let statistics = try #require(shifted.summary?.statistics)
            #expect(shifted.summary?.stopReason == .maxTokens)
            #expect(statistics.generatedTokens == 300 && statistics.promptTokens + 300 > 256)
            #expect(backend.cachedTokenCount <= 256)
            let (unshifted, _) = try await reply(.fail)
            #expect(unshifted.summary?.stopReason == .contextFull)
        }

        @Test func theSystemPromptAloneTooLongForTheShiftIsAnOverflow() async throws {
            let (session, _) = try TestModel.session(contextSize: 256, system: Self.message(0), overflow: .shift) { $0.maxTokens = 16 }
            await #expect(throws: ContextOverflowError.self) { _ = try await session.reply(to: "Hello.").collect() }
        }

        /// Bans the end of the reply.
        final class NoEnd: ChatHook {
            let name = "no-end"
            let points: Set<HookPoint> = [.logits]
            func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
                for token in TestModel.shared.endOfGenerationTokens { logits.ban(token) }
            }
        }
    }
}
