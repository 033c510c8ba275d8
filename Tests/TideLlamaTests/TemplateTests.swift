import Testing
import TideCore
@testable import TideLlama

extension RealModelTests {
    @Suite struct TemplateTests {
        let messages = [ChatMessage(.system, "S"), ChatMessage(.user, "U"), ChatMessage(.assistant, "A"),
                        ChatMessage(.user, "V")]

        @Test func theModelsOwnTemplateIsChatML() throws {
            let prompt = try TestModel.shared.renderPrompt(messages, template: .model)
            #expect(prompt == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n"
                + "<|im_start|>assistant\nA<|im_end|>\n<|im_start|>user\nV<|im_end|>\n<|im_start|>assistant\n")
        }

        @Test func namedTemplatesOverrideIt() throws {
            let phi = try TestModel.shared.renderPrompt(messages, template: .named("phi3"))
            #expect(phi.contains("<|user|>\nU<|end|>"))
            #expect(phi.hasSuffix("<|assistant|>\n"))
            let gemma = try TestModel.shared.renderPrompt(messages, template: .named("gemma"))
            #expect(gemma.contains("<start_of_turn>user\n"))
        }

        @Test func controlTokensInThePromptAreTokenizedAsSuch() throws {
            let tokens = try TestModel.shared.tokenize("<|im_start|>user", parseSpecial: true)
            #expect(TestModel.shared.tokenText(tokens[0]) == "<|im_start|>")
            #expect(TestModel.shared.detokenize(tokens) == "<|im_start|>user")
        }

        @Test func modelFacts() {
            let facts = TestModel.shared.facts
            #expect(facts.architecture == "llama")
            #expect(facts.vocabularySize == 49152)
            #expect(facts.quantization == "Q8_0")
            #expect(facts.trainedContextLength == 8192)
            #expect(facts.parameterCount > 100_000_000)
        }
    }
}

extension RealModelTests {
    @Suite struct RawTemplateTests {
        @Test func rawRendersPlainTextForBaseModels() throws {
            let messages = [ChatMessage(.user, "The capital of France is")]
            #expect(try TestModel.shared.renderPrompt(messages, template: .raw) == "The capital of France is")
            let turns = [ChatMessage(.system, ""), ChatMessage(.user, "A"), ChatMessage(.assistant, "B"), ChatMessage(.user, "C")]
            #expect(try TestModel.shared.renderPrompt(turns, template: .raw) == "A\n\nB\n\nC")
            #expect(try ChatTemplate(parsing: "raw") == .raw)
        }
    }
}
