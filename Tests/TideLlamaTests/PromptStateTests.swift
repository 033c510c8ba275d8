import Synchronization
import Testing
import TideCore
@testable import TideLlama
import TideTestSupport

extension RealModelTests {
    /// The model's state after a long prompt kept and loaded again by a context that never read
    /// it: the prompt's shared start is not evaluated again. What is asserted holds for any reply:
    /// how many prompt tokens were read from the kept state.
    @Suite struct PromptStateTests {
        /// Kept states in memory.
        final class MemoryStates: PromptStateStore {
            let kept = Mutex<[(tokens: [Int32], state: [UInt8])]>([])
            func longestPrefix(of tokens: [Int32]) -> KeptPromptState? {
                kept.withLock { kept in
                    kept.map { KeptPromptState(tokens: $0.tokens, sharedCount: zip($0.tokens, tokens).prefix { $0 == $1 }.count, state: $0.state) }
                        .max { $0.sharedCount < $1.sharedCount }
                }
            }
            func keep(_ state: [UInt8], tokens: [Int32]) {
                kept.withLock { $0.append((tokens, state)) }
            }
        }

        /// A system prompt of some 600 tokens.
        static let system = "You are a helpful assistant. " + (0..<60).map { "Fact \($0): river \($0) flows into lake \($0 % 7)." }
            .joined(separator: " ")

        func reply(_ question: String, states: MemoryStates) async throws -> GenerationStatistics {
            let (session, backend) = try TestModel.session(system: Self.system) { $0.maxTokens = 4 }
            backend.keepPromptStates(in: states)
            return try #require(try await session.reply(to: question).collect().summary?.statistics)
        }

        @Test func aNewContextLoadsTheSharedStartOfALongPrompt() async throws {
            let states = MemoryStates()
            let first = try await reply("Name a colour.", states: states)
            #expect(first.reusedPromptTokens == 0)
            #expect(states.kept.withLock { $0.count } == 1, "the long prompt's state was kept")
            let kept = states.kept.withLock { $0[0].tokens.count }
            #expect(kept == first.promptTokens)

            let second = try await reply("Name a fruit.", states: states)
            #expect(second.reusedPromptTokens >= PromptStates.minimumTokens, "\(second.reusedPromptTokens) of \(second.promptTokens)")
            #expect(second.reusedPromptTokens < kept, "cut where the questions part")
            #expect(second.evaluatedPromptTokens < PromptStates.minimumTokens)
        }

        @Test func aStateThatDoesNotLoadIsNotUsed() async throws {
            let states = MemoryStates()
            _ = try await reply("Name a colour.", states: states)
            states.kept.withLock { $0[0].state = Array($0[0].state.prefix(100)) }
            let second = try await reply("Name a fruit.", states: states)
            #expect(second.reusedPromptTokens == 0)
            #expect(second.generatedTokens > 0)
        }

        @Test func aShortPromptIsNeitherKeptNorLookedUp() async throws {
            let states = MemoryStates()
            let (session, backend) = try TestModel.session { $0.maxTokens = 2 }
            backend.keepPromptStates(in: states)
            _ = try await session.reply(to: "Hi").collect()
            #expect(states.kept.withLock { $0.isEmpty })
        }
    }
}
