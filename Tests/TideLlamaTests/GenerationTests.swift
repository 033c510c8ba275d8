import Foundation
import Synchronization
import Testing
import TideCore

extension RealModelTests {
    @Suite struct GenerationTests {
        @Test func aGreedyReplyEndsAndReportsItsStatistics() async throws {
            let (session, _) = try TestModel.session()
            let reply = try await session.reply(to: "What is the capital of France?").collect()
            #expect(!reply.text.isEmpty)
            let stats = try #require(reply.summary?.statistics)
            // Whichever words the model picks here: it ends by itself, or at max-tokens.
            switch reply.summary?.stopReason {
            case .endOfGeneration?: #expect(stats.generatedTokens < 64)
            case .maxTokens?: #expect(stats.generatedTokens == 64)
            case let other: Issue.record("stop reason \(String(describing: other))")
            }
            #expect(stats.promptTokens > 10)
            #expect(stats.timeToFirstToken != nil)
        }

        @Test func theSameSeedGivesTheSameText() async throws {
            func sample(seed: UInt32) async throws -> String {
                let (session, _) = try TestModel.session { $0.temperature = 0.9; $0.seed = seed; $0.maxTokens = 40 }
                return try await session.reply(to: "Tell me about the sea.").collect().text
            }
            let first = try await sample(seed: 1234)
            #expect(!first.isEmpty)
            #expect(try await sample(seed: 1234) == first)
        }

        @Test func maxTokensIsHonoured() async throws {
            let (session, _) = try TestModel.session { $0.maxTokens = 5 }
            session.hooks = [EndBan()]
            let reply = try await session.reply(to: "Write a long story about a dragon.").collect()
            #expect(reply.summary?.stopReason == .maxTokens)
            #expect(reply.summary?.statistics.generatedTokens == 5)
        }

        @Test func stopStringsNeverLeakAndHeldPrefixesFlush() async throws {
            let question = "What is the capital of France?"
            let (plain, _) = try TestModel.session()
            let reply = try await plain.reply(to: question).collect()
            let full = reply.text
            // A word of this machine's reply, past its first: the stop string.
            let words = full.split(whereSeparator: { !$0.isLetter }).dropFirst()
            let word = String(try #require(words.max { $0.count < $1.count }, "a reply of two words or more: \(full)"))
            let before = String(full[..<(try #require(full.range(of: word))).lowerBound])

            let (stopped, _) = try TestModel.session { $0.stop = [word] }
            let cut = try await stopped.reply(to: question).collect()
            #expect(cut.text == before)
            #expect(cut.summary?.stopReason == .stopString(word))

            // The word is held back as the start of "word!!!", then shown once it is not.
            let (partial, _) = try TestModel.session { $0.stop = [word + "!!!", full + "never"] }
            let flushed = try await partial.reply(to: question).collect()
            #expect(flushed.text == full)
            #expect(flushed.summary?.stopReason == reply.summary?.stopReason)
        }

        @Test func splitCharactersAreStreamedWholeAndIntact() async throws {
            let prompt = "Write the word café and a coffee emoji ☕."
            // The words held to a grammar, so that they are the same on any machine; how the model
            // spells them in tokens is its own choice.
            let text = "Un café ☕ et un 🦑."
            let (session, backend) = try TestModel.session { $0.format = try? ReplyFormat.grammar("root ::= \"\(text)\"") }
            // The raw tokens: at least one must end inside a multi-byte character.
            let decoder = try await backend.startReply(to: session.history + [ChatMessage(.user, prompt)],
                                                       parameters: session.parameters)
            var bytes: [UInt8] = []
            var splitTokens = 0
            while case .token(_, let tokenBytes) = try await decoder.nextToken(adjustingLogits: nil), bytes.count < 400 {
                if String(validating: tokenBytes, as: UTF8.self) == nil { splitTokens += 1 }
                bytes += tokenBytes
            }
            decoder.close()
            #expect(splitTokens > 0)
            let expected = try #require(String(validating: bytes, as: UTF8.self))
            #expect(expected == text)

            let reply = try await session.reply(to: prompt).collect()
            #expect(reply.text == expected)
            #expect(!reply.text.unicodeScalars.contains("\u{FFFD}"))
            #expect(reply.texts.allSatisfy { !$0.isEmpty })
        }

        @Test func logitsHooksCanBanTheGreedyChoice() async throws {
            let question = "What is the capital of France?"
            let (plain, _) = try TestModel.session { $0.maxTokens = 8 }
            let original = try await plain.reply(to: question).collect().text
            let firstToken = try #require(try TestModel.shared.tokenize(original).first)

            let hook = BanHook(token: firstToken)
            let (session, backend) = try TestModel.session { $0.maxTokens = 8 }
            session.hooks = [hook]
            let banned = try await session.reply(to: question).collect().text
            #expect(!banned.hasPrefix(TestModel.shared.tokenText(firstToken)))
            #expect(backend.supportsLogits)
            #expect(hook.topSeen.withLock { $0 })
        }
    }
}

/// Bans one token at every step, and checks `top` returns sorted candidates.
final class BanHook: ChatHook, Sendable {
    let name = "ban"
    let points: Set<HookPoint> = [.logits]
    let token: Int32
    let topSeen = Mutex(false)
    init(token: Int32) { self.token = token }
    func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
        let top = logits.top(5)
        topSeen.withLock { $0 = top.count == 5 && zip(top, top.dropFirst()).allSatisfy { $0.logit >= $1.logit } }
        logits.ban(token)
    }
}
