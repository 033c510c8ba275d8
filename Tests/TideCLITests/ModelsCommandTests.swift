import Foundation
import Testing

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
