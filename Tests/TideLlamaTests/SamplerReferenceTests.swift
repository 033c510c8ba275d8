import Foundation
import Testing
import TideCore
@testable import TideLlama
import TideModels
import TideTestSupport

extension RealModelTests {
    /// Tide's samplers against llama.cpp's own sampling on the same file: the chain llama-server
    /// builds (`common_sampler`, driven through llama-cpp-python's bindings of the same library by
    /// Tests/TideTestSupport/Fixtures/reference_sampling.py) gives the same reply as Tide's, on one
    /// context and on a sequence of a batch (what `tide serve` uses), for every sampler that draws
    /// the same tokens from the same scores: greedy, or seeded. The reference runs on the very
    /// library this process loaded (`LLAMA_CPP_LIB_PATH`), and Tide's contexts on this machine as it
    /// is (no `TIDE_MACHINE` noise), so that both sample the same scores on any CPU or GPU.
    @Suite struct SamplerReferenceTests {
        static let prompt = "The tide comes in and the tide goes out. The tide comes in"

        /// llama-server's request fields for each sampler.
        static let cases: [[String: ParameterValue]] = [
            ["temperature": 0, "repeat_penalty": 1.3, "presence_penalty": 0.5, "frequency_penalty": 0.4],
            ["temperature": 0, "dry_multiplier": 2, "dry_base": 1.5, "dry_allowed_length": 1],
            ["temperature": 0, "logit_bias": [[" tide", -100], [13, false], [" out", 5]]],
            ["temperature": 0, "typical_p": 0.3],
            ["temperature": 0, "xtc_probability": 1, "xtc_threshold": 0.05, "seed": 3],
            ["temperature": 0.8, "top_n_sigma": 1, "seed": 11],
            ["temperature": 0.8, "mirostat": 2, "mirostat_tau": 3, "seed": 5],
            ["temperature": 0.8, "mirostat": 1, "seed": 5],
        ]

        /// `fields` as Tide's parameters, read by the same declarations as a request's.
        static func parameters(_ fields: [String: ParameterValue]) throws -> GenerationParameters {
            var parameters = GenerationParameters()
            parameters.maxTokens = 40
            parameters.rawPrompt = true
            parameters.draft = .off
            for (field, value) in fields {
                try #require(GenerationParameters.declaration(field: field)).set(value, in: &parameters)
            }
            try parameters.validate()
            return parameters
        }

        /// llama.cpp's reply for `fields`.
        static func reference(_ fields: [String: ParameterValue]) throws -> String {
            var request = fields
            request["prompt"] = .text(prompt)
            request["max_tokens"] = 40
            return try JSONDecoder().decode(String.self, from: try LlamaReference.run("reference_sampling.py", request: request))
        }

        /// Context options on this machine as it is: scores unmoved by `TIDE_MACHINE`.
        static func options(_ contextSize: Int) -> LlamaContextOptions {
            var options = LlamaContextOptions(contextSize: contextSize, machine: .underTest)
            options.machine = SimulatedMachine()
            return options
        }

        @Test(arguments: cases) func tideSamplesAsLlamaCppDoes(fields: [String: ParameterValue]) async throws {
            let parameters = try Self.parameters(fields)
            let expected = try Self.reference(fields)
            let single = try LlamaBackend(model: TestModel.shared, options: Self.options(1024))
            let alone = try await ChatSession(backend: single, parameters: parameters).reply(to: Self.prompt).collect()
            #expect(alone.text == expected, "\(fields)")
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: Self.options(1024))
            defer { engine.shutdown() }
            let inBatch = try await ChatSession(backend: try engine.makeBackend(), parameters: parameters).reply(to: Self.prompt).collect()
            #expect(inBatch.text == expected, "\(fields)")
        }

        /// A reply made with each sampler, recorded, is confirmed whole by teacher forcing.
        @Test(arguments: cases) func aReplyMadeWithEachSamplerIsConfirmed(fields: [String: ParameterValue]) async throws {
            let parameters = try Self.parameters(fields)
            func session() throws -> ChatSession {
                let session = ChatSession(backend: try LlamaBackend(model: TestModel.shared, options: Self.options(1024)),
                                          parameters: parameters)
                session.hooks = [EndBan()]
                return session
            }
            let generated = try await session().reply(to: Self.prompt).collect()
            let forced = try await session().reply(to: Self.prompt, forcing: generated.text).collect()
            let summary = try #require(forced.summary)
            #expect(forced.text == generated.text, "\(fields)")
            #expect(summary.teacherForcing == .confirmed(tokens: summary.statistics.generatedTokens), "\(fields)")
            #expect(summary.statistics.generatedTokens == 40)
        }

        /// A token id the model does not have is refused when the reply starts, naming it.
        @Test func aLogitBiasOfATokenTheModelLacksIsRefused() async throws {
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 512, machine: .underTest))
            let parameters = try Self.parameters(["logit_bias": [[60000, 1]]])
            await #expect(throws: InvalidParameterError(name: "logit-bias", value: "60000", requirement: "a token id of this model, from 0 to 49151")) {
                _ = try await ChatSession(backend: backend, parameters: parameters).reply(to: "Hi").collect()
            }
        }
    }
}
