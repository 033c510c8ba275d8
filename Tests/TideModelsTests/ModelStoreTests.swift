import Foundation
import Testing
import TideModels

@Suite struct ModelStoreTests {
    let store = ModelStore(directory: URL(fileURLWithPath: "/nonexistent/tide-models"))

    @Test func unknownNamesListTheKnownOnes() {
        #expect(throws: ModelLookupError.unknownModel("llama-9000")) { try store.resolve("llama-9000") }
        #expect(ModelLookupError.unknownModel("x").description.contains("smollm2-135m-instruct"))
    }

    @Test func registryModelsNotYetFetchedSayHowToFetchThem() {
        #expect(throws: ModelLookupError.notInstalled("gemma-3-270m",
                                                      expectedAt: "/nonexistent/tide-models/gemma-3-270m-q4_k_m.gguf")) {
            try store.resolve("gemma-3-270m")
        }
    }

    @Test func pathsAreTakenAsPaths() throws {
        #expect(try store.resolve("./x.gguf").entry == nil)
        #expect(try store.resolve("/tmp/y.GGUF").path == "/tmp/y.GGUF")
    }

    @Test func theRegistryHasTheDocumentedModels() throws {
        let ids = ModelRegistry.entries.map(\.id)
        #expect(ids == ["smollm2-135m-instruct", "smollm2-135m-instruct-q4_1", "gemma-3-270m", "phi-3.5-mini-instruct",
                        "phi-4-mini-instruct", "all-minilm-l6-v2"])
        #expect(ModelRegistry.entry(named: ModelRegistry.defaultEmbeddingModelID)?.purpose == .embedding)
        // The default is made on this machine from the file as published.
        #expect(ModelRegistry.entry(named: ModelRegistry.defaultModelID)?.source
            == .requantized(from: ModelRegistry.bundledOriginalID, format: "Q8_0"))
        let phi = try #require(ModelRegistry.entry(named: "phi-3.5-mini-instruct"))
        #expect(phi.endOfGenerationStrings == ["<|end|>"])
        #expect(ModelRegistry.entry(named: "SmolLM2-135M-Instruct")?.sha256?.count == 64)
    }

    @Test func theStandardStoreFollowsXDG() {
        #expect(ModelStore.standard.directory.path.hasSuffix("tide/models"))
    }
}
