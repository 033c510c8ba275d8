import Synchronization
import Testing
@testable import TideCore
import TideTestSupport

/// The reply cache in the session's pipeline, on a scripted backend: a determined reply is kept,
/// given again without the backend with the hooks run on it as before, and never kept or given
/// where it would not be the same reply.
@Suite struct ReplyCacheTests {
    /// A cache in memory, counting what it was asked.
    final class MemoryCache: ReplyCache {
        let replies = Mutex<[ReplyCacheKey: CachedReply]>([:])
        let hits = Atomic<Int>(0)
        func reply(for key: ReplyCacheKey) async -> CachedReply? {
            let found = replies.withLock { $0[key] }
            if found != nil { hits.add(1, ordering: .relaxed) }
            return found
        }
        func store(_ reply: CachedReply, for key: ReplyCacheKey) async {
            replies.withLock { $0[key] = reply }
        }
        var count: Int { replies.withLock { $0.count } }
    }

    private static func session(_ backend: ScriptedBackend, cache: MemoryCache, hooks: [any ChatHook] = [],
                                temperature: Double = 0, seed: UInt32? = nil) -> ChatSession {
        var parameters = GenerationParameters()
        parameters.temperature = temperature
        parameters.seed = seed
        let session = ChatSession(backend: backend, systemPrompt: "Be brief.", parameters: parameters, hooks: hooks)
        session.replyCache = cache
        return session
    }

    @Test func aDeterminedReplyIsGivenAgainWithoutTheModelAndTheHooksSeeItAlike() async throws {
        let cache = MemoryCache()
        let first = ScriptedBackend(["Hello", ",", " world"])
        let journal = Journal()
        let made = try await Self.session(first, cache: cache, hooks: [TestHook("h", [.prompt, .token, .stop, .reply], journal: journal)])
            .reply(to: "Hi").collect()
        #expect(cache.count == 1)
        #expect(made.summary?.statistics.cached == nil)
        let heardFirst = journal.all

        let second = ScriptedBackend(["Something", " else"])
        let again = Journal()
        let session = Self.session(second, cache: cache, hooks: [TestHook("h", [.prompt, .token, .stop, .reply], journal: again)])
        let given = try await session.reply(to: "Hi").collect()
        #expect(given.texts == made.texts)
        #expect(given.summary?.stopReason == .endOfGeneration)
        #expect(given.summary?.statistics.generatedTokens == 3)
        #expect(given.summary?.statistics.cached != nil)
        #expect(second.events.isEmpty, "the backend was not asked: \(second.events)")
        #expect(again.all == heardFirst, "the hooks were called alike")
        #expect(session.history.last?.content == "Hello, world")
    }

    @Test func aChangedPromptOrParameterGeneratesAndSoDoesAReplyThatIsNotDetermined() async throws {
        let cache = MemoryCache()
        _ = try await Self.session(ScriptedBackend(["a"]), cache: cache).reply(to: "Hi").collect()
        let other = ScriptedBackend(["b"])
        #expect(try await Self.session(other, cache: cache).reply(to: "Hello").collect().texts == ["b"], "another prompt")
        let hotter = ScriptedBackend(["c"])
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 7
        let session = Self.session(hotter, cache: cache)
        session.parameters = parameters
        #expect(try await session.reply(to: "Hi").collect().texts == ["c"], "another parameter")

        let sampled = MemoryCache()
        _ = try await Self.session(ScriptedBackend(["d"]), cache: sampled, temperature: 0.8).reply(to: "Hi").collect()
        #expect(sampled.count == 0, "a reply sampled without a seed is not kept")
        _ = try await Self.session(ScriptedBackend(["e"]), cache: sampled, temperature: 0.8, seed: 3).reply(to: "Hi").collect()
        #expect(sampled.count == 1, "one sampled with a fixed seed is")
    }

    @Test func aHookThatReadsTheScoresKeepsTheReplyOutOfTheCache() async throws {
        let cache = MemoryCache()
        let hook = TestHook("scores", [.logits], journal: Journal())
        _ = try await Self.session(ScriptedBackend(["a"]), cache: cache, hooks: [hook]).reply(to: "Hi").collect()
        _ = try await Self.session(ScriptedBackend(["a"]), cache: cache, hooks: [hook]).reply(to: "Hi").collect()
        #expect(cache.count == 0)
        #expect(cache.hits.load(ordering: .relaxed) == 0)
    }

    @Test func aRewindIsGivenAgainAndAHookThatDecidesOtherwiseIsToldToRunWithoutTheCache() async throws {
        let cache = MemoryCache()
        let made = try await Self.session(ScriptedBackend(["The", " bad", " word", "."]), cache: cache,
                                          hooks: [RewindTests.PhraseBan("bad")]).reply(to: "Hi").collect()
        #expect(made.summary?.statistics.rewinds == 1)
        let backend = ScriptedBackend(["x"])
        let given = try await Self.session(backend, cache: cache, hooks: [RewindTests.PhraseBan("bad")]).reply(to: "Hi").collect()
        #expect(given.texts.joined() == made.texts.joined())
        #expect(given.summary?.statistics.rewinds == 1)
        #expect(backend.events.isEmpty)

        // The same steps, a hook that no longer rewinds where it did: it takes back " word" instead.
        await #expect(throws: CachedReplyDiverged.self) {
            _ = try await Self.session(ScriptedBackend(["x"]), cache: cache, hooks: [RewindTests.PhraseBan("word")])
                .reply(to: "Hi").collect()
        }
    }

    @Test func aCancelledReplyIsNotKept() async throws {
        let cache = MemoryCache()
        let backend = ScriptedBackend((0..<1000).map { _ in "x" })
        backend.tokenDelay = .milliseconds(1)
        let session = Self.session(backend, cache: cache)
        var pieces = 0
        for try await event in session.reply(to: "go") {
            if case .text = event {
                pieces += 1
                if pieces == 3 { session.cancelReply() }
            }
        }
        #expect(cache.count == 0)
    }
}
