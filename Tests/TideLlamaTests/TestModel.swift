import Foundation
import TideCore
@testable import TideLlama
import TideModels
import TideTestSupport

/// The bundled model (installed by scripts/setup.sh), loaded once for all tests.
enum TestModel {
    static let shared: LlamaModel = {
        let entry = ModelRegistry.entry(named: ModelRegistry.defaultModelID)!
        let path = ModelStore.standard.path(for: entry).path
        do {
            return try LlamaModel.load(path: path)
        } catch {
            fatalError("the bundled model must be installed for these tests (run `make test`): \(error)")
        }
    }()

    /// Whether the bundled model's batches score bit for bit as single tokens on the machine under
    /// test (``SimulatedMachine/batchesAreExact(for:)``).
    static let batchesAreExact = SimulatedMachine.batchesAreExact(for: shared)

    /// A fresh context and session, greedy unless told otherwise.
    static func session(contextSize: Int = 2048, system: String? = "You are a helpful assistant.", hooks: [any ChatHook] = [],
                        overflow: ContextOverflowPolicy = .fail,
                        configure: (inout GenerationParameters) -> Void = { _ in }) throws -> (ChatSession, LlamaBackend)
    {
        let backend = try LlamaBackend(model: shared, options: LlamaContextOptions(contextSize: contextSize, machine: .underTest))
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 64
        configure(&parameters)
        return (ChatSession(backend: backend, systemPrompt: system, parameters: parameters, hooks: hooks, overflowPolicy: overflow),
                backend)
    }

    /// A scratch directory for files a test writes.
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tide-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Bans the model's end-of-generation tokens, so that a reply runs to its `max-tokens` whichever
/// words the model picks on this machine.
final class EndBan: ChatHook, Sendable {
    let name = "end-ban"
    let points: Set<HookPoint> = [.logits]
    /// The bundled model's end-of-generation tokens.
    static let endTokens = TestModel.shared.endOfGenerationTokens

    func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
        for token in Self.endTokens { logits.ban(token) }
    }
}

/// Raises the token spelling `letter` at every position, so that a reply writes it wherever it may.
final class LetterRaise: ChatHook, Sendable {
    let name = "letter-raise"
    let points: Set<HookPoint> = [.logits]
    let token: Int32
    let raise: Float

    init(letter: String, by raise: Float) {
        token = (try? TestModel.shared.tokenize(letter))?.first ?? 0
        self.raise = raise
    }

    func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
        logits.bias(token, by: raise)
    }
}
