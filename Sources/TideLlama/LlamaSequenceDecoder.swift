import CLlama
import TideCore

/// Samples one reply on a sequence of a ``LlamaBatchEngine``. Each call queues the tokens to
/// evaluate (the prompt's new part first, then the token sampled last) and waits for the step
/// that decodes them; sampling, and the logits hooks, run in that step on the scheduler thread,
/// while the logits are valid.
final class LlamaSequenceDecoder: ReplyDecoder {
    private let backend: LlamaSequenceBackend
    private let sampler: SamplerChain
    private let prompt: [Int32]
    private var started = false
    private var pending: Int32?
    /// Where the sequence is cut before the next decode, after a rewind.
    private var cut: Int?
    let promptTokenCount: Int
    let reusedPromptTokenCount: Int

    init(backend: LlamaSequenceBackend, sampler: SamplerChain, prompt: [Int32], reused: Int) {
        self.backend = backend
        self.sampler = sampler
        self.prompt = prompt
        promptTokenCount = prompt.count
        reusedPromptTokenCount = reused
    }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        if sampler.isResampling {
            // A rewound position is sampled again from its saved scores: no decode.
            let step = try sampler.resample(model: backend.engine.model, adjustingLogits: adjustingLogits)
            if case .token(let id, _) = step { pending = id } else { pending = nil }
            return step
        }
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
        if case .token(let id, _) = step { pending = id } else { pending = nil }
        return step
    }

    private func decode(_ tokens: ArraySlice<Int32>, at position: Int, trimming: Bool, cutting cut: Int?,
                        adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken
    {
        let backend = backend
        let sampler = sampler
        let prompt = prompt
        let model = backend.engine.model
        let adjust = UncheckedSendable(adjustingLogits)
        return try await withCheckedThrowingContinuation { continuation in
            let request = StepRequest(
                sequence: backend.sequence, tokens: tokens, position: position,
                preparation: trimming ? { context, request in
                    // Drop what the cache holds past the shared prefix; if the cache cannot drop
                    // a tail, it starts over and the whole prompt is evaluated.
                    let kept = backend.cache.withLock { $0.kept.reuseCommonPrefix(of: prompt, in: context) }
                    if kept != position { request.restart(with: prompt[kept...], at: kept) }
                } : cut.map { cut in { context, _ in
                    // After a rewind, the tokens taken back leave the cache.
                    _ = backend.cache.withLock { $0.kept.truncate(to: cut, in: context) }
                } },
                onAdvance: { chunk in backend.cache.withLock { $0.kept.tokens += chunk } },
                onFailure: { context, start in _ = backend.cache.withLock { $0.kept.truncate(to: start, in: context) } },
                finish: { context, index in try sampler.step(context, at: index, model: model, adjustingLogits: adjust.value) },
                resume: { continuation.resume(with: $0) })
            backend.engine.step(request)
        }
    }

    func keepRewindPoints() throws { sampler.keepRewindPoints() }

    func rewind(to position: Int) throws {
        guard sampler.rewind(to: position) else { throw LlamaError.rewindFailed(position: position) }
        pending = nil
        cut = promptTokenCount + position
    }

    func forgetRewindPoints(before position: Int) throws { sampler.forgetRewindPoints(before: position) }

    func close() { backend.endReply() }
}

/// A value handed to the scheduler thread while its owner waits for the result, so it is never
/// used from two threads at once.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
