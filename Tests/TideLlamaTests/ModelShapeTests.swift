import Testing
@testable import TideLlama

/// The shape the offload plan reads before the weights load (a vocabulary-only load, whose
/// hyperparameters llama.cpp leaves unread: asking for them aborted on the first GPU machine).
@Suite struct ModelShapeTests {
    @Test func theFileSaysWhatTheLoadedModelIs() throws {
        let model = TestModel.shared
        let read = try LlamaModel.shape(ofFile: model.path)
        #expect(read == model.shape)
        // SmolLM2-135M: 30 blocks and the output layer; 576 wide over 9 heads, 3 of them for keys and values.
        #expect(read.layers == 31 && read.keyValueWidth == 192, "\(read)")
        #expect(read.kvCacheBytes(contextSize: 4096) == 4096 * 30 * 192 * 4)
    }

    @Test func metadataWithoutAKeyValueCountUsesTheHeadsAndWithoutBlocksSaysNothing() {
        let gemmaLike = ["general.architecture": "gemma3", "gemma3.block_count": "18", "gemma3.embedding_length": "640",
                         "gemma3.attention.head_count": "4"]
        let shape = ModelShape(metadata: { gemmaLike[$0] })
        #expect(shape?.layers == 19 && shape?.keyValueWidth == 640, "\(String(describing: shape))")
        #expect(ModelShape(metadata: { ["general.architecture": "llama"][$0] }) == nil)
    }
}
