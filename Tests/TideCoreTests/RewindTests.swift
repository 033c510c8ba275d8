import Synchronization
import Testing
@testable import TideCore
import TideTestSupport

/// Taking back the end of a reply, on a scripted backend: a rewound position gives its token
/// again unless it is banned there, and then the script's next token.
@Suite struct RewindTests {
    /// Takes back `phrase` wherever it appears in the last `window` bytes, banning its first token.
    final class PhraseBan: ChatHook, @unchecked Sendable {
        let name = "phrase-ban"
        let points: Set<HookPoint> = [.stop]
        let phrase: String
        let rewindWindow: Int
        /// Overrides where the rewind goes, to misbehave.
        let offset: (@Sendable (Int, Int) -> Int)?
        let ban: Bool

        init(_ phrase: String, window: Int = 16, ban: Bool = true, offset: (@Sendable (Int, Int) -> Int)? = nil) {
            self.phrase = phrase
            self.rewindWindow = window
            self.ban = ban
            self.offset = offset
        }

        func shouldStop(_ reply: ReplyProgress) throws -> StopDecision {
            guard let range = reply.text.range(of: phrase) else { return .proceed }
            let start = reply.text.utf8.distance(from: reply.text.startIndex, to: range.lowerBound)
            return .rewind(Rewind(offset: offset?(start, reply.text.utf8.count) ?? start, banFirstToken: ban))
        }
    }

    /// Records every piece of text per-token hooks are shown.
    final class Witness: ChatHook, @unchecked Sendable {
        let name = "witness"
        let points: Set<HookPoint> = [.token]
        let seen = Mutex<[String]>([])
        /// The reply text it was given with each piece.
        let replies = Mutex<[String]>([])
        func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision {
            seen.withLock { $0.append(token.text) }
            replies.withLock { $0.append(reply.text) }
            return .pass
        }
    }

    @Test func aBannedPhraseIsTakenBackAndNeverShown() async throws {
        let backend = ScriptedBackend(["The", " bad", " word", " is", " gone", "."])
        let witness = Witness()
        let session = ChatSession(backend: backend, hooks: [PhraseBan("bad"), witness])
        let reply = try await session.reply(to: "Hi").collect()
        #expect(reply.texts.joined() == "The word is gone.")
        #expect(!witness.seen.withLock { $0 }.joined().contains("bad"), "per-token hooks never saw the phrase")
        #expect(!witness.replies.withLock { $0 }.contains { $0.contains("bad") }, "nor in the reply text they are given")
        #expect(reply.summary?.statistics.rewinds == 1)
        #expect(reply.summary?.statistics.discardedTokens == 1)
        #expect(reply.summary?.statistics.generatedTokens == 5)
        #expect(backend.events.contains("rewind 1"))
        #expect(backend.events.contains("ban 2"), "the token that began the phrase is banned where it stood")
        #expect(session.history.last?.content == "The word is gone.")
    }

    @Test func aPhraseSpreadOverTokensIsTakenBackFromItsFirstToken() async throws {
        let backend = ScriptedBackend(["A", " b", "a", "d", " b", "ee", "."])
        let session = ChatSession(backend: backend, hooks: [PhraseBan("bad")])
        let reply = try await session.reply(to: "Hi").collect()
        // " b" is banned at position 1; "a" follows instead, and so on: "bad" never forms.
        #expect(!reply.texts.joined().contains("bad"))
        #expect(reply.summary?.statistics.rewinds ?? 0 >= 1)
    }

    @Test func rewindingPastTheWindowOrTheStartIsTheHooksFailure() async throws {
        for (hook, message) in [
            (PhraseBan("bad", window: 16, offset: { _, length in length - 17 }), "more than its rewind window of 16"),
            (PhraseBan("bad", offset: { _, _ in -1 }), "past the start of the reply"),
            (PhraseBan("bad", offset: { _, length in length + 5 }), "tried to rewind to byte"),
            (PhraseBan("bad", offset: { _, length in length }), "tried to rewind to byte"),
        ] {
            let backend = ScriptedBackend(["Once", " upon", " a", " time", " a", " bad", " wolf", "."])
            let session = ChatSession(backend: backend, hooks: [hook])
            let reply = try await session.reply(to: "Hi").collect()
            #expect(reply.failures.first?.message.contains(message) == true, "\(reply.failures)")
            #expect(reply.failures.first?.hookName == "phrase-ban")
            #expect(reply.texts.joined() == "Once upon a time a bad wolf.", "the reply is kept; the hook is disabled")
            let strict = ChatSession(backend: ScriptedBackend(["a", " bad", "."]), hooks: [hook], hookErrorPolicy: .failReply)
            await #expect(throws: HookFailure.self) { _ = try await strict.reply(to: "Hi").collect() }
        }
    }

    @Test func rewindsAreBoundedAndTheReplyEndsWithAClearReason() async throws {
        // Without a ban the model says the same again: a loop, stopped by the limit.
        let backend = ScriptedBackend(["It", " is", " bad", " here"])
        var parameters = GenerationParameters()
        parameters.maxRewinds = 3
        let session = ChatSession(backend: backend, parameters: parameters, hooks: [PhraseBan("bad", ban: false)])
        let reply = try await session.reply(to: "Hi").collect()
        #expect(reply.summary?.stopReason == .rewindLimit)
        #expect(reply.texts.joined() == "It is", "what was taken back last is not shown")
        #expect(reply.summary?.statistics.rewinds == 4)
        #expect(reply.failures.first?.message.contains("more than 3 rewinds in one reply") == true, "\(reply.failures)")
    }

    @Test func aPhraseCompletedWithAStopStringIsStillTakenBack() async throws {
        let backend = ScriptedBackend(["Say", " bad!\n", " more", "\n"])
        var parameters = GenerationParameters()
        parameters.stop = ["\n"]
        let session = ChatSession(backend: backend, parameters: parameters, hooks: [PhraseBan("bad")])
        let reply = try await session.reply(to: "Hi").collect()
        #expect(reply.texts.joined() == "Say more")
        #expect(reply.summary?.stopReason == .stopString("\n"))
        #expect(reply.summary?.statistics.rewinds == 1)
    }

    /// A refused rewind on the token that completes a stop string leaves the stop string in charge.
    @Test func aRefusedRewindStillStopsAtTheStopString() async throws {
        let backend = ScriptedBackend(["Say", " bad!\n", " more", " and more"])
        var parameters = GenerationParameters()
        parameters.stop = ["\n"]
        let session = ChatSession(backend: backend, parameters: parameters, hooks: [PhraseBan("bad", offset: { _, _ in -1 })])
        let reply = try await session.reply(to: "Hi").collect()
        #expect(reply.summary?.stopReason == .stopString("\n"))
        #expect(reply.texts.joined() == "Say bad!")
        #expect(reply.failures.first?.message.contains("past the start of the reply") == true)
    }

    @Test func whenEveryContinuationIsBannedTheReplyEnds() async throws {
        let session = ChatSession(backend: ScriptedBackend(["bad", "bad", "bad"]), hooks: [PhraseBan("bad")])
        let reply = try await session.reply(to: "Hi").collect()
        #expect(reply.summary?.stopReason == .endOfGeneration, "each banned token is skipped until none is left")
        #expect(reply.texts.joined() == "")
    }

    @Test func aBackendThatCannotRewindRefusesTheHookByName() async throws {
        let backend = ScriptedBackend(["a"])
        backend.supportsRewind = false
        let session = ChatSession(backend: backend, hooks: [PhraseBan("bad")])
        await #expect(throws: UnsupportedHookError(hook: "phrase-ban", model: "scripted", needs: .rewind)) {
            _ = try await session.reply(to: "Hi").collect()
        }
    }

    @Test func textOutsideEveryWindowIsReleasedAsItComes() async throws {
        // A window of 4 bytes holds back 8: the first words are shown before the reply ends.
        let backend = ScriptedBackend(["one", " two", " three", " four", " five"])
        backend.tokenDelay = .milliseconds(5)
        let session = ChatSession(backend: backend, hooks: [PhraseBan("zzz", window: 4)])
        var shownBeforeTheEnd = ""
        for try await event in session.reply(to: "Hi") {
            if case .text(let text) = event, !backend.events.contains("close") { shownBeforeTheEnd += text }
        }
        #expect(shownBeforeTheEnd.hasPrefix("one two"))
    }
}
