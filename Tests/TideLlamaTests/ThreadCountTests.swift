import Testing
import TideCore
@testable import TideLlama
import TideTestSupport

extension RealModelTests {
    /// A decode's thread count, which Tide lowers while the machine is busy (``ThreadShare``),
    /// changes how fast it is, never what it computes: wherever the batch probe found that one
    /// thread scores as every core does, a greedy reply is the same on one thread as on all.
    @Suite struct ThreadCountTests {
        func reply(threads: Int) async throws -> String {
            let backend = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, threads: threads, machine: .underTest))
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = 96
            let session = ChatSession(backend: backend, systemPrompt: nil, parameters: parameters)
            return try await session.reply(to: "Write a long story about a lighthouse keeper.").collect().text
        }

        @Test(.enabled(if: LlamaContextOptions.coreCount > 1, "one core: no fewer threads to use"))
        func oneThreadGivesTheReplyEveryCoreGives() async throws {
            let cores = LlamaContextOptions.coreCount
            let one = try await reply(threads: 1)
            let all = try await reply(threads: cores)
            #expect(!one.isEmpty && !all.isEmpty)
            // Whether this CPU's kernels split their sums by thread is the CPU's business; the
            // probe says, and the thread count follows the load only where it says they do not.
            if TestModel.shared.batchFacts(threads: cores, kernel: AttentionKernel()).sameOnOneThread {
                #expect(one == all)
            }
        }
    }
}
