import CLlama
import TideCore

/// Samples one reply on a sequence of a ``LlamaBatchEngine``. Each call queues the tokens to
/// evaluate (the prompt's new part first, then the token sampled last) and waits for the step
/// that decodes them; sampling, and the logits hooks, run in that step on the scheduler thread,
/// while the logits are valid.
///
/// A reply checked by teacher forcing queues its recorded tokens a chunk at a time instead, and
/// copies their scores out of the step (the other sequences' steps come before the next
/// position is sampled); positions are then sampled from the copies, with no step, until the
/// chunk is used up or the model chooses otherwise.
final class LlamaSequenceDecoder: ReplyDecoder {
    private let backend: LlamaSequenceBackend
    private let sampler: SamplerChain
    private let prompt: [Int32]
    private var started = false
    private var pending: Int32?
    /// Where the sequence is cut before the next decode, after a rewind or a divergence.
    private var cut: Int?
    private var forcer: TeacherForcer?
    /// The scores of the positions the last chunk of recorded tokens gave, one vocabulary each.
    private var forcedScores: [Float] = []
    let promptTokenCount: Int
    /// The prompt's tokens found in the cache: counted when the reply starts, and lowered on the
    /// scheduler thread if the cache cannot keep them (it then starts over).
    private(set) var reusedPromptTokenCount: Int

    init(backend: LlamaSequenceBackend, sampler: SamplerChain, prompt: [Int32], reused: Int, forcer: TeacherForcer?) {
        self.backend = backend
        self.sampler = sampler
        self.prompt = prompt
        self.forcer = forcer
        promptTokenCount = prompt.count
        reusedPromptTokenCount = reused
    }

    var teacherForcing: TeacherForcing? { forcer?.outcome }

    var steering: BudgetSteering? { sampler.steering }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        sampler.expectation = forcer?.expectation(tolerance: sampler.tolerance)
        if sampler.isResampling {
            // A rewound position is sampled again from its saved scores: no decode.
            let step = try sampler.resample(model: backend.engine.model, adjustingLogits: adjustingLogits)
            keep(step)
            return step
        }
        if started, forcer?.isForcing == true { return try await forcedToken(adjustingLogits: adjustingLogits) }
        let tokens: ArraySlice<Int32>
        let position: Int
        if started {
            guard let pending else { return .endOfGeneration }
            position = cut ?? backend.cache.withLock { $0.kept.tokens.count }
            guard position < backend.contextSize else { return .contextFull }
            tokens = [pending]
        } else {
            position = reusedPromptTokenCount
            tokens = prompt[reusedPromptTokenCount...]
        }
        let step = try await decode(tokens, at: position, trimming: !started, cutting: cut, adjustingLogits: adjustingLogits)
        started = true
        cut = nil
        keep(step)
        return step
    }

    /// The choice at the next position of a forced reply, from the scores of the recorded token
    /// before it: decoded with the next chunk, or copied from the last one.
    private func forcedToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        guard forcer!.startStep(promptLength: promptTokenCount, contextSize: backend.contextSize) else { return .contextFull }
        let step: DecodedToken
        if forcer!.needsScores {
            let position = promptTokenCount + forcer!.evaluated
            let chunk = forcer!.nextChunk(limit: min(backend.contextSize - position, backend.engine.batchCapacity))
            step = try await decode(chunk, at: position, outputs: chunk.count, trimming: false, cutting: cut,
                                    adjustingLogits: adjustingLogits)
            cut = nil
        } else {
            step = try forcedStep(adjustingLogits: adjustingLogits)
        }
        keep(step)
        return step
    }

    /// Samples the forced position from its copied scores.
    private func forcedStep(adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken {
        let offset = forcer!.indexInChunk * backend.engine.model.facts.vocabularySize
        return try forcedScores.withUnsafeMutableBufferPointer { scores in
            try sampler.step(scores.baseAddress! + offset, model: backend.engine.model, adjustingLogits: adjustingLogits)
        }
    }

    /// Copies the scores of the `count` batch entries up to `last` (a chunk's) out of `context`.
    private func copyScores(_ context: OpaquePointer, last: Int32, count: Int) {
        let vocabulary = backend.engine.model.facts.vocabularySize
        forcedScores.removeAll(keepingCapacity: true)
        for index in (Int(last) - count + 1)...Int(last) {
            guard let logits = llama_get_logits_ith(context, Int32(index)) else {
                preconditionFailure("a chunk's decode keeps the logits of each of its entries")
            }
            forcedScores.append(contentsOf: UnsafeBufferPointer(start: logits, count: vocabulary))
        }
    }

    /// What the next step evaluates after `step`: its token, unless it is the recorded one of
    /// a forced reply (already in the cache, or in the next chunk). At the first that is not,
    /// the recorded tokens after it leave the cache before the next decode.
    private func keep(_ step: DecodedToken) {
        if forcer?.isForcing == true {
            if forcer!.check(step, nearTie: sampler.nearTie) {
                // The model spelled the recording with other tokens: those evaluated leave the cache.
                if let respelled = forcer!.takeCut() { cut = promptTokenCount + respelled }
                pending = nil
                return
            }
            cut = promptTokenCount + forcer!.divergence!
        }
        if case .token(let id, _) = step { pending = id } else { pending = nil }
    }

    private func decode(_ tokens: ArraySlice<Int32>, at position: Int, outputs: Int = 1, trimming: Bool, cutting cut: Int?,
                        adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken
    {
        let backend = backend
        let sampler = sampler
        let prompt = prompt
        let model = backend.engine.model
        let adjust = UncheckedSendable(adjustingLogits)
        return try await withCheckedThrowingContinuation { continuation in
            let request = StepRequest(
                sequence: backend.sequence, tokens: tokens, position: position, outputs: outputs,
                preparation: trimming ? { context, request in
                    // Drop what the cache holds past the shared prefix; if the cache cannot drop
                    // a tail, it starts over and the whole prompt is evaluated.
                    let kept = backend.cache.withLock { $0.kept.reuseCommonPrefix(of: prompt, in: context) }
                    if kept != position {
                        request.restart(with: prompt[kept...], at: kept)
                        self.reusedPromptTokenCount = kept
                    }
                } : cut.map { cut in { context, _ in
                    // After a rewind, the tokens taken back leave the cache.
                    _ = backend.cache.withLock { $0.kept.truncate(to: cut, in: context) }
                } },
                onAdvance: { chunk in backend.cache.withLock { $0.kept.tokens += chunk } },
                onFailure: { context, start in _ = backend.cache.withLock { $0.kept.truncate(to: start, in: context) } },
                finish: { context, index in
                    guard outputs > 1 else { return try sampler.step(context, at: index, model: model, adjustingLogits: adjust.value) }
                    self.copyScores(context, last: index, count: outputs)
                    return try self.forcedStep(adjustingLogits: adjust.value)
                },
                resume: { continuation.resume(with: $0) })
            backend.engine.step(request)
        }
    }

    func keepRewindPoints() throws { sampler.keepRewindPoints() }

    func rewind(to position: Int) throws {
        guard sampler.rewind(to: position) else { throw LlamaError.rewindFailed(position: position) }
        forcer?.rewind(to: position)
        pending = nil
        cut = promptTokenCount + position
    }

    func forgetRewindPoints(before position: Int) throws { sampler.forgetRewindPoints(before: position) }

    func close() {
        // The cache as generating would leave it, for the next prompt to be evaluated alike: the
        // tokens past that (a forced chunk's, or those a cut not yet made would drop) are
        // forgotten, and leave the cache when the next prompt is prepared.
        let length = forcer.flatMap { $0.isForcing ? promptTokenCount + $0.generatedCacheLength : nil } ?? cut
        if let length { backend.cache.withLock { $0.kept.tokens.removeSubrange(min(length, $0.kept.tokens.count)...) } }
        backend.endReply()
    }
}

/// A value handed to the scheduler thread while its owner waits for the result, so it is never
/// used from two threads at once.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
