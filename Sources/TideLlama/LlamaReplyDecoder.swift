import CLlama
import TideCore

/// Samples one reply from a ``LlamaBackend`` whose prompt has been evaluated.
///
/// A sampled token is evaluated only when the next one is asked for, so the cache never holds
/// a token the reply did not keep (an end-of-generation token, or one after a stop). A reply
/// checked by teacher forcing is the exception while the recording holds: its recorded tokens
/// are evaluated a chunk at a time, and those after the first divergence leave the cache. So is
/// a reply that drafts (``Drafter``): a draft is evaluated with the token before it, and what the
/// model does not accept of it leaves the cache.
final class LlamaReplyDecoder: ReplyDecoder {
    private let backend: LlamaBackend
    private let sampler: SamplerChain
    private var pending: Int32?
    private var forcer: TeacherForcer?
    private var drafter: Drafter?
    /// Reply positions sampled so far: generating one token at a time would hold all but the
    /// last of their tokens in the cache.
    private var sampled = 0
    let promptTokenCount: Int
    let reusedPromptTokenCount: Int

    init(backend: LlamaBackend, sampler: SamplerChain, promptTokenCount: Int, reusedPromptTokenCount: Int,
         forcer: TeacherForcer?, drafter: Drafter?)
    {
        self.backend = backend
        self.sampler = sampler
        self.promptTokenCount = promptTokenCount
        self.reusedPromptTokenCount = reusedPromptTokenCount
        self.forcer = forcer
        self.drafter = drafter
    }

    var teacherForcing: TeacherForcing? { forcer?.outcome }

    var drafting: DraftStatistics? { drafter?.outcome }

    var steering: BudgetSteering? { sampler.steering }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        if forcer?.isForcing == true { return try forcedToken(adjustingLogits: adjustingLogits) }
        if drafter?.isChecking == true { return try draftedToken(adjustingLogits: adjustingLogits) }
        if let pending {
            guard backend.room > 0 else { return .contextFull }
            let limit = min(backend.room, backend.batchCapacity, TeacherForcer.chunkSize) - 1
            let draft = drafter?.nextDraft(after: pending, limit: limit) ?? []
            let start = ContinuousClock.now
            try backend.evaluate([pending] + draft, everyLogit: !draft.isEmpty)
            drafter?.timed(ContinuousClock.now - start)
            self.pending = nil
            if !draft.isEmpty { return try draftedToken(adjustingLogits: adjustingLogits) }
        }
        let step = try sampler.step(backend.context, model: backend.model, adjustingLogits: adjustingLogits)
        sampled += 1
        if case .token(let id, _) = step { pending = id }
        return step
    }

    /// The choice at the next position, from the scores of the draft's entry before it. While
    /// the model chooses the drafted tokens they are already in the cache; at the first it does
    /// not, the rest of the draft leaves it. Where llama.cpp scores a batch otherwise than a token
    /// alone, the drafted token is the model's choice when the sampler chooses it within the tolerance.
    private func draftedToken(adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken {
        let index = drafter!.index
        if !backend.checksDraftsExactly {
            sampler.expectation = drafter!.expectedToken.map { SamplerChain.Expectation(token: $0, tolerance: sampler.tolerance) }
        }
        let step = try sampler.step(backend.context, at: Int32(index), model: backend.model, adjustingLogits: adjustingLogits)
        sampled += 1
        guard case .token(let id, _) = step else {
            drafter!.finish()
            return step
        }
        if !drafter!.check(id) {
            // The cache keeps the token before the draft and the `index` accepted: those of
            // every position before this one.
            _ = backend.truncate(to: promptTokenCount + sampled - 1)
            pending = id
        }
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
        sampler.expectation = forcer!.expectation(tolerance: sampler.tolerance)
        let step = try sampler.step(backend.context, at: index, model: backend.model, adjustingLogits: adjustingLogits)
        if forcer!.check(step, nearTie: sampler.nearTie) {
            // The model spelled the recording with other tokens: those evaluated leave the cache.
            if let cut = forcer!.takeCut() { _ = backend.truncate(to: promptTokenCount + cut) }
        } else if let divergence = forcer!.divergence {
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
        drafter?.rewind(toContextLength: promptTokenCount + position)
        pending = nil
        sampled = position
    }

    func forgetRewindPoints(before position: Int) throws { sampler.forgetRewindPoints(before: position) }

    func close() {
        // The cache as generating would leave it, for the next prompt to be evaluated alike.
        if let forcer, forcer.isForcing {
            _ = backend.truncate(to: promptTokenCount + forcer.generatedCacheLength)
        } else if drafter != nil {
            _ = backend.truncate(to: promptTokenCount + max(sampled - 1, 0))
        }
        backend.endReply()
    }
}
