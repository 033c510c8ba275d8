import Foundation
import Testing
import TideCore
import TideLlama
import TideModels

extension RealModelTests {
    /// The bundled embedding model (all-MiniLM-L6-v2, converted by scripts/convert-encoder.py)
    /// gives the vectors of the model's own reference code: within cosine 0.99 of those
    /// sentence-transformers computed once for 20 sentences
    /// (Tests/TideTestSupport/Fixtures/embedding_reference.json, made by make_embedding_reference.py).
    @Suite struct EmbeddingTests {
        struct Reference: Decodable {
            struct Sentence: Decodable {
                var text: String
                var vector: [Float]
            }

            var sentences: [Sentence]
        }

        static let embedder: LlamaEmbedder = {
            let entry = ModelRegistry.entry(named: ModelRegistry.defaultEmbeddingModelID)!
            do {
                return try LlamaEmbedder(model: try LlamaModel.load(path: ModelStore.standard.path(for: entry).path))
            } catch {
                fatalError("the bundled embedding model must be installed for these tests (run `make test`): \(error)")
            }
        }()

        static func reference() throws -> Reference {
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("TideTestSupport/Fixtures/embedding_reference.json")
            return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: file))
        }

        @Test func vectorsMatchTheReferenceImplementation() async throws {
            let reference = try Self.reference()
            #expect(reference.sentences.count == 20)
            let vectors = try await Self.embedder.embed(reference.sentences.map(\.text))
            #expect(vectors.count == 20 && vectors.allSatisfy { $0.count == 384 })
            for (sentence, vector) in zip(reference.sentences, vectors) {
                let similarity = cosineSimilarity(sentence.vector, vector)
                #expect(similarity >= 0.99, "\(sentence.text.debugDescription): cosine \(similarity)")
                let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
                #expect(abs(norm - 1) < 1e-4, "normalised: \(norm)")
            }
        }

        /// Texts are embedded many to one decode, and a text's vector does not depend on the
        /// others decoded with it (each is a sequence of its own).
        @Test func manyTextsTakeFewDecodes() async throws {
            let embedder = Self.embedder
            let texts = (0..<1000).map { "Sentence number \($0) about the tide." }
            let before = embedder.decodeCalls
            let vectors = try await embedder.embed(texts)
            let calls = embedder.decodeCalls - before
            #expect(vectors.count == 1000 && calls <= 1000 / 64 + 1, "\(calls) decodes")
            let alone = try await embedder.embed([texts[500]])[0]
            #expect(cosineSimilarity(alone, vectors[500]) > 0.999)
        }

        /// A text longer than the model reads at once is refused, naming it, not cut.
        @Test func aTooLongTextIsRefused() async throws {
            let long = String(repeating: "word ", count: 600)
            await #expect(throws: EmbeddingError.tooLong(index: 1, tokens: 602, limit: 512)) {
                try await Self.embedder.embed(["short", long])
            }
        }
    }
}
