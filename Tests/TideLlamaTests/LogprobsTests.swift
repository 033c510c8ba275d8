import Foundation
import Synchronization
import Testing
import TideCore
import TideLlama
import TideTestSupport

extension RealModelTests {
    /// A reply's log-probabilities go out with its text: the tokens of the `logprobs` events,
    /// in order, are the summary's and spell the shown text (then the model's end, when it ended
    /// the reply), whatever the words, also when a
    /// plugin takes tokens back (the positions sampled again replace theirs) and when a reply
    /// drafts (its tokens checked in batches). Under greedy decoding with no stage before the
    /// choice, each token decoded alone is the likeliest listed.
    @Suite struct LogprobsTests {
        /// Takes back the reply's second and later tokens once, when it has five: what a plugin
        /// that rewinds does, at a place that does not depend on the words.
        final class OneRewind: ChatHook {
            let name = "one-rewind"
            let points: Set<HookPoint> = [.stop]
            var rewindWindow: Int { 8 }
            let lengths = Mutex<[Int: Int]>([:])
            let done = Mutex(false)

            func shouldStop(_ reply: ReplyProgress) throws -> StopDecision {
                lengths.withLock { $0[reply.tokenCount] = reply.text.utf8.count }
                guard reply.tokenCount == 5, !done.withLock({ $0 }), let offset = lengths.withLock({ $0[1] }) else { return .proceed }
                done.withLock { $0 = true }
                return .rewind(Rewind(offset: offset))
            }
        }

        @Test(arguments: [(false, DraftMode.off), (true, .off), (false, .always)])
        func theTokensScoredSpellTheText(rewinding: Bool, draft: DraftMode) async throws {
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.draft = draft
            parameters.maxTokens = 24
            parameters.logprobs = 3
            let rewind = OneRewind()
            let session = ChatSession(backend: try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest)),
                                      parameters: parameters)
            if rewinding { session.hooks = [rewind] }
            var sent: [TokenLogprob] = []
            var texts: [String] = []
            var summary: ReplySummary?
            for try await event in session.reply(to: "Repeat after me: the cat sat on the mat, the cat sat on the mat.") {
                switch event {
                case .logprobs(let tokens): sent += tokens
                case .text(let text): texts.append(text)
                case .finished(let finished): summary = finished
                default: break
                }
            }
            let reply = try #require(summary)
            #expect(!rewinding || rewind.done.withLock { $0 }, "the plugin took tokens back")
            #expect(draft == .off || (reply.statistics.drafting?.drafted ?? 0) > 0, "the reply drafted")
            #expect(sent == reply.logprobs)
            // The model's end, when it ended the reply, comes last.
            let ended = reply.stopReason == .endOfGeneration ? 1 : 0
            #expect(reply.logprobs.count == reply.statistics.generatedTokens + ended)
            #expect(reply.logprobs.dropLast(ended).flatMap(\.token.bytes) == Array(texts.joined().utf8), "\(reply.logprobs.map(\.token.text))")
            for position in reply.logprobs {
                #expect(position.top.count == 3 && position.top.map(\.logprob) == position.top.map(\.logprob).sorted(by: >))
                #expect(position.token.logprob <= 0 && position.token.logprob <= position.top[0].logprob + 1e-9, "\(position)")
                // Decoding one token at a time, greedy takes the likeliest; a drafted token may be
                // accepted within the tolerance where a machine's batches score otherwise.
                if draft == .off { #expect(position.top.first == position.token, "\(position)") }
            }
        }
    }
}
