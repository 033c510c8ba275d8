import Testing
import TideCore

extension RealModelTests {
    /// Prompts are tokenized in pieces cut before special tokens, in linear time, to exactly the
    /// tokens of the whole text. (The messages hold no control token's text: that is tokenized as
    /// plain text, see HostileInputTests.)
    @Suite struct PromptTokenTests {
        @Test func piecesGiveTheTokensOfTheWholePrompt() throws {
            let model = TestModel.shared
            let messages = (0..<700).map { index in
                ChatMessage(index % 2 == 0 ? .user : .assistant, "Message \(index):  hello world\n\n <im_end> ")
            }
            let whole = try model.tokenize(model.renderPrompt(messages, template: .model), addSpecial: true, parseSpecial: true)
            #expect(try model.promptTokens(for: messages, template: .model) == whole)
            let short = [ChatMessage(.user, "Hi")]
            #expect(try model.promptTokens(for: short, template: .model)
                        == model.tokenize(model.renderPrompt(short, template: .model), addSpecial: true, parseSpecial: true))
        }

        /// Four times the messages take about four times as long, not sixteen: llama.cpp alone took
        /// 15 s for 20,000 short messages and 54 s for 40,000. A ratio of the two, each the fastest
        /// of three runs taken in turn, so that what else the machine does weighs alike on both.
        @Test func manyMessagesAreTokenizedInLinearTime() throws {
            func time(_ count: Int) throws -> Duration {
                let messages = [ChatMessage](repeating: ChatMessage(.user, "hi"), count: count)
                let start = ContinuousClock.now
                let tokens = try TestModel.shared.promptTokens(for: messages, template: .model)
                #expect(tokens.count > count * 5)
                return ContinuousClock.now - start
            }
            var (short, long) = (Duration.seconds(1000), Duration.seconds(1000))
            for _ in 0..<3 {
                short = min(short, try time(5000))
                long = min(long, try time(20000))
            }
            #expect(long < short * 8, "5,000 messages: \(short), 20,000: \(long)")
        }
    }
}
