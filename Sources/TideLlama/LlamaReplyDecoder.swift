import CLlama
import TideCore

/// Samples one reply from a ``LlamaBackend`` whose prompt has been evaluated.
///
/// A sampled token is evaluated only when the next one is asked for, so the cache never holds
/// a token the reply did not keep (an end-of-generation token, or one after a stop). A reply
/// checked by teacher forcing is the exception while the recording holds: its recorded tokens
/// are evaluated a chunk at a time, and those after the first divergence leave the cache.
final class LlamaReplyDecoder: ReplyDecoder {
    private let backend: LlamaBackend
    private let sampler: SamplerChain
    private var pending: Int32?
    private var forcer: TeacherForcer?
    let promptTokenCount: Int
    let reusedPromptTokenCount: Int

    init(backend: LlamaBackend, sampler: SamplerChain, promptTokenCount: Int, reusedPromptTokenCount: Int,
         forcer: TeacherForcer?)
    {
        self.backend = backend
        self.sampler = sampler
        self.promptTokenCount = promptTokenCount
        self.reusedPromptTokenCount = reusedPromptTokenCount
        self.forcer = forcer
    }

    var teacherForcing: TeacherForcing? { forcer?.outcome }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        if forcer?.isForcing == true { return try forcedToken(adjustingLogits: adjustingLogits) }
        if let pending {
            guard backend.room > 0 else { return .contextFull }
            try backend.evaluate([pending])
            self.pending = nil
        }
        let step = try sampler.step(backend.context, model: backend.model, adjustingLogits: adjustingLogits)
        if case .token(let id, _) = step { pending = id }
        return step
    }

    /// The choice at the next position from the scores the recorded tokens gave; at the first
    /// that is not the recorded one, the recorded tokens after it leave the cache.
    private func forcedToken(adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken {
        guard forcer!.startStep(promptLength: promptTokenCount, contextSize: backend.contextSize) else { return .contextFull }
        if forcer!.needsScores {
            try backend.evaluate(forcer!.nextChunk(limit: min(backend.room, backend.batchCapacity)), everyLogit: true)
        }
        let index = forcer!.position == 0 ? -1 : Int32(forcer!.indexInChunk)
        let step = try sampler.step(backend.context, at: index, model: backend.model, adjustingLogits: adjustingLogits)
        if !forcer!.check(step), let divergence = forcer!.divergence {
            _ = backend.truncate(to: promptTokenCount + divergence)
            if case .token(let id, _) = step { pending = id }
        }
        return step
    }

    func keepRewindPoints() throws { sampler.keepRewindPoints() }

    func rewind(to position: Int) throws {
        // The cache first: the sampler goes back only once its tokens are gone.
        guard sampler.canRewind(to: position), backend.truncate(to: promptTokenCount + position), sampler.rewind(to: position) else {
            throw LlamaError.rewindFailed(position: position)
        }
        forcer?.rewind(to: position)
        pending = nil
    }

    func forgetRewindPoints(before position: Int) throws { sampler.forgetRewindPoints(before: position) }

    func close() {
        // The cache as generating would leave it, for the next prompt to be evaluated alike.
        if let forcer, forcer.isForcing { _ = backend.truncate(to: promptTokenCount + forcer.generatedCacheLength) }
        backend.endReply()
    }
}
