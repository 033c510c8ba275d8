import CLlama
import TideCore

/// Samples one reply from a ``LlamaBackend`` whose prompt has been evaluated.
///
/// A sampled token is evaluated only when the next one is asked for, so the cache never holds
/// a token the reply did not keep (an end-of-generation token, or one after a stop).
final class LlamaReplyDecoder: ReplyDecoder {
    private let backend: LlamaBackend
    private let sampler: SamplerChain
    private var pending: Int32?
    let promptTokenCount: Int
    let reusedPromptTokenCount: Int

    init(backend: LlamaBackend, sampler: SamplerChain, promptTokenCount: Int, reusedPromptTokenCount: Int) {
        self.backend = backend
        self.sampler = sampler
        self.promptTokenCount = promptTokenCount
        self.reusedPromptTokenCount = reusedPromptTokenCount
    }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        if let pending {
            guard backend.hasRoom else { return .contextFull }
            try backend.evaluate([pending])
            self.pending = nil
        }
        let step = try sampler.step(backend.context, model: backend.model, adjustingLogits: adjustingLogits)
        if case .token(let id, _) = step { pending = id }
        return step
    }

    func keepRewindPoints() throws { sampler.keepRewindPoints() }

    func rewind(to position: Int) throws {
        // The cache first: the sampler goes back only once its tokens are gone.
        guard sampler.canRewind(to: position), backend.truncate(to: promptTokenCount + position), sampler.rewind(to: position) else {
            throw LlamaError.rewindFailed(position: position)
        }
        pending = nil
    }

    func forgetRewindPoints(before position: Int) throws { sampler.forgetRewindPoints(before: position) }

    func close() { backend.endReply() }
}
