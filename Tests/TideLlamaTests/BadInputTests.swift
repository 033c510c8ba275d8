import Foundation
import Testing
import TideTestSupport
import TideCore
@testable import TideLlama

extension RealModelTests {
    @Suite struct BadInputTests {
        @Test func aMissingFileIsNamed() throws {
            #expect(throws: LlamaError.modelNotFound(path: "/nonexistent/model.gguf")) {
                try LlamaModel.load(path: "/nonexistent/model.gguf")
            }
        }

        @Test func aFileThatIsNotGGUF() throws {
            let file = try TestModel.scratchDirectory().appendingPathComponent("page.gguf")
            try Data("<html>Not found</html>".utf8).write(to: file)
            #expect(throws: LlamaError.invalidModel(path: file.path,
                                                    reason: "it does not start with the GGUF magic (found \"<htm\")")) {
                try LlamaModel.load(path: file.path)
            }
            try Data().write(to: file)
            #expect(throws: LlamaError.invalidModel(path: file.path, reason: "the file is empty")) {
                try LlamaModel.load(path: file.path)
            }
        }

        @Test func aTruncatedModel() throws {
            let real = try Data(contentsOf: URL(fileURLWithPath: TestModel.shared.path))
            let file = try TestModel.scratchDirectory().appendingPathComponent("half.gguf")
            try real.prefix(real.count / 2).write(to: file)
            do {
                _ = try LlamaModel.load(path: file.path)
                Issue.record("a truncated model loaded")
            } catch let LlamaError.loadFailed(path, detail) {
                #expect(path == file.path)
                #expect(!detail.isEmpty)
            }
            try real.prefix(12).write(to: file)
            #expect(throws: LlamaError.invalidModel(path: file.path, reason: "the file is truncated inside its header")) {
                try LlamaModel.load(path: file.path)
            }
        }

        @Test(arguments: [1, 2, 3])
        func randomBytesAfterTheMagic(seed: UInt64) throws {
            var generator = SplitMix(seed: seed)
            var bytes = Array("GGUF".utf8) + [3, 0, 0, 0]
            bytes += (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[8] = 1  // declare at least one tensor so the header check passes on to llama.cpp
            let file = try TestModel.scratchDirectory().appendingPathComponent("noise-\(seed).gguf")
            try Data(bytes).write(to: file)
            #expect(throws: LlamaError.self) { try LlamaModel.load(path: file.path) }
        }

        @Test func aPromptLongerThanTheContext() async throws {
            let (session, backend) = try TestModel.session(contextSize: 256)
            let long = Array(repeating: "The quick brown fox jumps over the lazy dog.", count: 40).joined(separator: " ")
            do {
                _ = try await session.reply(to: long).collect()
                Issue.record("an oversized prompt was accepted")
            } catch let error as ContextOverflowError {
                #expect(error.contextSize == backend.contextSize)
                #expect(error.promptTokens > backend.contextSize)
                #expect(error.remedies == [.contextSize, .dropOldestTurns])
                #expect(!error.description.contains("--"), "the engine names no flag: \(error)")
            }
            #expect(session.history.count == 1)
            let next = try await session.reply(to: "Hi").collect()
            #expect(next.summary != nil)
        }

        @Test func aReplyThatFillsTheContextStopsCleanly() async throws {
            let (session, backend) = try TestModel.session(contextSize: 256) { $0.maxTokens = 1000 }
            session.hooks = [EndBan()]
            let reply = try await session.reply(to: "Write a long story about a lighthouse keeper.").collect()
            #expect(reply.summary?.stopReason == .contextFull)
            #expect(backend.cachedTokenCount == backend.contextSize)
            #expect(session.history.last?.content == reply.text)
        }

        @Test func unknownTemplateNamesAreRefused() {
            #expect(throws: LlamaError.unsupportedTemplate("nonsense")) { try ChatTemplate(parsing: "nonsense") }
            #expect(ChatTemplate.builtinNames.contains("chatml"))
            #expect(ChatTemplate.builtinNames.contains("phi3"))
        }
    }
}
