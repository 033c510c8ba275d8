import CLlama
import TideCore

/// Samples one reply on a sequence of a ``LlamaBatchEngine``: the one decoder, whether the
/// sequence is alone in its context (``LlamaBackend/init(model:options:template:endOfGenerationStrings:toolFormat:)``)
/// or one of many in a batch. Each call queues the tokens to evaluate (the prompt's new part
/// first, then the token sampled last) and waits for the engine's step that decodes them;
/// sampling, and the logits hooks, run in that step on the engine's thread, while the logits are
/// valid.
///
/// A sampled token is evaluated only when the next one is asked for, so the cache never holds a
/// token the reply did not keep (an end-of-generation token, or one after a stop). Two kinds of
/// reply evaluate ahead, a chunk of tokens in one decode with the scores of each kept
/// (``ChunkScores``), and sample the positions after from those scores with no decode between
/// them, for as long as the model chooses the tokens evaluated:
/// - a reply checked by teacher forcing (``TeacherForcer``), while the recording holds: its
///   recorded tokens, a chunk at a time;
/// - a reply that drafts (``Drafter``): the token sampled last with a draft after it — under
///   `lookup`, while no other sequence decodes in the engine's steps (``LlamaBatchEngine/isShared``).
///
/// At the first token the model does not choose, the tokens evaluated after it leave the cache
/// before the next decode (the same cut a rewind makes).
///
/// Under a context shift (``ContextWindow``), the prompt is the window of the conversation that
/// fits, the cache shifted to start it in the first step; a reply that reaches the context's end
/// drops a step of the oldest tokens after the kept ones (the prompt's, then its own), the rest
/// shifted into their place, and goes on.
final class LlamaReplyDecoder: ReplyDecoder {
    private let backend: LlamaBackend
    private let sampler: ReplySampler
    private let prompt: [Int32]
    private var started = false
    private var pending: Int32?
    /// Where the sequence is cut before the next decode, after a rewind, a divergence from the
    /// recording or a draft's first refused token.
    private var cut: Int?
    private var forcer: TeacherForcer?
    private var drafter: Drafter?
    /// The scores of the last chunk's entries (recorded tokens, or a draft).
    private var chunk: ChunkScores
    /// Reply positions sampled so far: generating one token at a time would hold all but the last
    /// of their tokens in the cache.
    private var sampled = 0
    /// Whether a step of this reply needed its scores, so its later steps copy them too.
    private var leftBackendChoice = false
    /// How many of the prompt's tokens ``scorePrompt(top:)`` put in the cache (all but the last).
    private var scoredPromptLength: Int?
    let promptTokenCount: Int
    /// The window of the conversation the prompt is, under a context shift; `nil` otherwise.
    private var window: ContextWindow?
    /// The shift the next step makes first: the prompt's (to start its window), or one within
    /// the reply.
    private var shift: CacheShift?
    /// Tokens (the prompt's, then the reply's) that shifts within the reply dropped from the cache.
    private var shiftedOut = 0
    /// The cache position of the reply's first token, were it still held: after the prompt, less
    /// what shifts within the reply dropped.
    private var replyStart: Int { promptTokenCount - shiftedOut }
    /// The prompt's tokens found in the cache: counted when the reply starts, and lowered on the
    /// engine's thread if the cache cannot keep them (it then starts over).
    private(set) var reusedPromptTokenCount: Int

    init(backend: LlamaBackend, sampler: ReplySampler, prompt: [Int32], reused: Int, forcer: TeacherForcer?, drafter: Drafter?,
         window: ContextWindow? = nil, shift: CacheShift? = nil)
    {
        self.backend = backend
        self.sampler = sampler
        self.prompt = prompt
        self.forcer = forcer
        self.drafter = drafter
        chunk = ChunkScores(vocabularySize: backend.model.facts.vocabularySize)
        promptTokenCount = prompt.count
        reusedPromptTokenCount = reused
        self.window = window
        self.shift = shift
    }

    var teacherForcing: TeacherForcing? { forcer?.outcome }

    var drafting: DraftStatistics? { drafter?.outcome }

    var steering: BudgetSteering? { sampler.steering }

    var lastLogprob: TokenLogprob? { sampler.lastLogprob }

    private var model: LlamaModel { backend.model }

    /// Whether a chunk's scores stay in the context until the reply has used them: no other
    /// sequence decodes in between.
    private var readsChunksInPlace: Bool { backend.engine.sequenceCapacity == 1 }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        sampler.tolerance.expectation = forcer?.expectation(tolerance: sampler.plan.tolerance)
        if sampler.rewinds.isResampling {
            // A rewound position is sampled again from its saved scores: no decode.
            return keep(try sampler.resample(model: model, adjustingLogits: adjustingLogits))
        }
        if started, forcer?.isForcing == true { return try await forcedToken(adjustingLogits: adjustingLogits) }
        if drafter?.isChecking == true { return checked(try draftedToken(adjustingLogits: adjustingLogits)) }
        guard started else {
            let read = scoredPromptLength ?? reusedPromptTokenCount
            let step = try await decode(prompt[read...], at: read, trimming: true, adjustingLogits: adjustingLogits)
            started = true
            return keep(step)
        }
        guard let pending else { return .endOfGeneration }
        var position = cut ?? backend.cache.withLock { $0.kept.tokens.count }
        if position >= backend.contextSize {
            guard let shift = shiftWithinReply(at: position) else { return .contextFull }
            position -= shift.count
        }
        // Drafts only while no other sequence decodes beside it (``LlamaBatchEngine/isShared``),
        // unless it drafts whatever a check costs; not in a step that shifts the cache first.
        let drafts = (!backend.engine.isShared || drafter?.always == true) && shift == nil
        let limit = drafts ? min(backend.contextSize - position, backend.engine.sharedBudget, TeacherForcer.chunkSize) - 1 : 0
        let draft = drafter?.nextDraft(after: pending, limit: limit) ?? []
        let step = try await decode([pending] + draft, at: position, outputs: draft.count + 1, adjustingLogits: adjustingLogits)
        return draft.isEmpty ? keep(step) : checked(step)
    }

    /// The shift that makes room for the reply's next token, the cache being full at `position`:
    /// a step of the oldest tokens after the kept ones (the prompt's, then the reply's), made
    /// before the next decode. `nil` without a context shift, or while checking a recording.
    private func shiftWithinReply(at position: Int) -> CacheShift? {
        guard let window, forcer == nil else { return nil }
        let count = min(window.step, position - window.kept)
        guard count > 0 else { return nil }
        let shift = CacheShift(dropping: count, of: window)
        self.window = shift.result
        self.shift = shift
        shiftedOut += count
        return shift
    }

    /// Reads the prompt from its start, but for its last token (which the first step decodes), a
    /// piece at a time (``LlamaBatchEngine/scoringPiece``) with the scores of every entry, and
    /// scores each token by the entry before it. What the cache held of it is read again: a cached
    /// position's scores are not kept. A BOS token the model starts every text with is not the
    /// prompt's: the first token after it is scored, given it.
    func scorePrompt(top: Int) async throws -> PromptLogprobs {
        precondition(!started && scoredPromptLength == nil, "the prompt is scored before the reply's first step")
        let addsBOS = llama_vocab_get_add_bos(model.vocab)
        let first = prompt.first.flatMap { addsBOS && $0 == llama_vocab_bos(model.vocab) ? nil : $0 }
        var scored = PromptLogprobs(first: first, firstBytes: first.map(model.tokenBytes) ?? [], rest: [])
        let end = prompt.count - 1
        var position = 0
        while position < end {
            let tokens = prompt[position..<min(end, position + backend.engine.scoringPiece)]
            scored.rest += try await score(tokens, at: position, top: top)
            position = tokens.endIndex
        }
        reusedPromptTokenCount = 0
        scoredPromptLength = max(end, 0)
        return scored
    }

    /// Decodes `tokens` at `position` keeping every entry's scores, and scores the token after each.
    private func score(_ tokens: ArraySlice<Int32>, at position: Int, top: Int) async throws -> [TokenLogprob] {
        let backend = backend
        let model = model
        let next = prompt[(tokens.startIndex + 1)...tokens.endIndex]
        let scored = UncheckedSendable(ScoredBox())
        _ = try await withCheckedThrowingContinuation { continuation in
            backend.engine.step(StepRequest(
                sequence: backend.sequence, tokens: tokens, position: position, outputs: tokens.count,
                preparation: position > 0 ? nil : { context, _ in _ = backend.cache.withLock { $0.kept.truncate(to: 0, in: context) } },
                onAdvance: { chunk in backend.cache.withLock { $0.kept.tokens += chunk } },
                onFailure: { context, start in _ = backend.cache.withLock { $0.kept.truncate(to: start, in: context) } },
                finish: { context, last, _ in
                    for (offset, token) in next.enumerated() {
                        let index = last - Int32(tokens.count - 1 - offset)
                        guard let logits = llama_get_logits_ith(context, index) else {
                            preconditionFailure("a decode of several scored entries keeps the logits of each of them")
                        }
                        let distribution = LogSoftmax(logits, count: model.facts.vocabularySize, top: top)
                        scored.value.tokens.append(distribution.scored(token, logit: logits[Int(token)], model: model))
                    }
                    // The step's own token is not asked for: the scores are the result.
                    return .endOfGeneration
                },
                resume: { continuation.resume(with: $0) }))
        }
        return scored.value.tokens
    }

    /// The choice at the next position of a forced reply, from the scores of the recorded token
    /// before it: decoded with the next chunk, or kept from the last one.
    private func forcedToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        guard forcer!.startStep(promptLength: promptTokenCount, contextSize: backend.contextSize) else { return .contextFull }
        guard forcer!.needsScores else {
            return keep(try chunk.step(forcer!.indexInChunk, sampler: sampler, model: model, adjustingLogits: adjustingLogits))
        }
        let position = promptTokenCount + forcer!.evaluated
        let recorded = forcer!.nextChunk(limit: min(backend.contextSize - position, backend.engine.batchCapacity))
        return keep(try await decode(recorded, at: position, outputs: recorded.count, adjustingLogits: adjustingLogits))
    }

    /// The choice at the next position of a draft being checked: the sampler's, from the scores
    /// of the draft's entry before it (``Drafter``).
    private func draftedToken(adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken {
        try chunk.step(drafter!.index, sampler: sampler, model: model, adjustingLogits: adjustingLogits)
    }

    /// Checks a step of a draft: while the model chooses the drafted tokens they are already in
    /// the cache; at the first it does not, the rest of the draft leaves it, the token chosen
    /// instead to be evaluated next.
    private func checked(_ step: DecodedToken) -> DecodedToken {
        sampled += 1
        guard case .token(let id, _) = step else {
            drafter!.finish()
            pending = nil
            return step
        }
        pending = nil
        if !drafter!.check(id) {
            // The cache keeps the token before the draft and those accepted: every position's
            // before this one.
            cut = replyStart + sampled - 1
            pending = id
        }
        return step
    }

    /// What the next step evaluates after `step`: its token, unless it is the recorded one of
    /// a forced reply (already in the cache, or in the next chunk). At the first that is not,
    /// the recorded tokens after it leave the cache before the next decode.
    private func keep(_ step: DecodedToken) -> DecodedToken {
        sampled += 1
        if forcer?.isForcing == true {
            if forcer!.check(step, nearTie: sampler.tolerance.nearTie) {
                // The model spelled the recording with other tokens: those evaluated leave the cache.
                if let respelled = forcer!.takeCut() { cut = replyStart + respelled }
                pending = nil
                return step
            }
            cut = replyStart + forcer!.divergence!
        }
        if case .token(let id, _) = step { pending = id } else { pending = nil }
        return step
    }

    /// Queues `tokens` at `position` for the engine's next step and waits for it; the step samples
    /// the next position from the scores of the first of the last `outputs` tokens (keeping them
    /// all when there are several). `trimming` (the prompt's step) first drops what the cache
    /// holds past the shared prefix; otherwise a pending cut is made first.
    private func decode(_ tokens: ArraySlice<Int32>, at position: Int, outputs: Int = 1, trimming: Bool = false,
                        adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken
    {
        let backend = backend
        let sampler = sampler
        let prompt = prompt
        let model = model
        let inPlace = readsChunksInPlace
        let adjust = UncheckedSendable(adjustingLogits)
        let cut = trimming ? nil : self.cut
        let shift = self.shift
        let window = self.window
        self.cut = nil
        self.shift = nil
        let graphChoice = graphChoice(outputs: outputs, adjustingLogits: adjustingLogits)
        // A draft's check is sized by what a step with one costs against a step without: its
        // decode, the steps it waited through, and the copy of its scores.
        let timesStep = !trimming && forcer == nil
        return try await withCheckedThrowingContinuation { continuation in
            let request = StepRequest(
                sequence: backend.sequence, tokens: tokens, position: position, outputs: outputs, graphChoice: graphChoice,
                preparation: trimming ? { context, request in
                    // Shift the window the cache holds to start the prompt's, then drop what it
                    // holds past the shared prefix; if the cache cannot drop a tail, it starts
                    // over and the whole prompt is evaluated.
                    let kept = backend.cache.withLock { state in
                        if let shift { _ = state.kept.shift(shift, in: context) }
                        var reused = state.kept.reuseCommonPrefix(of: prompt, in: context)
                        if let store = backend.promptStates {
                            reused = PromptStates.restore(prompt, reused: reused, into: &state.kept, store: store, in: context)
                        }
                        state.kept.window = window?.shifts == true ? window : nil
                        return reused
                    }
                    if kept != position {
                        request.restart(with: prompt[kept...], at: kept)
                        self.reusedPromptTokenCount = kept
                    }
                } : cut == nil && shift == nil ? nil : { context, request in
                    // Tokens taken back (a rewind, a divergence, a refused draft) leave the cache;
                    // then a shift within the reply makes room. What a shift could not keep is
                    // evaluated again before the step's tokens.
                    let lost = backend.cache.withLock { state in
                        if let cut { _ = state.kept.truncate(to: cut, in: context) }
                        return shift.map { state.kept.shift($0, in: context) } ?? []
                    }
                    if !lost.isEmpty { request.restart(with: ArraySlice(lost + tokens), at: position - lost.count) }
                },
                onAdvance: { chunk in backend.cache.withLock { $0.kept.tokens += chunk } },
                onFailure: { context, start in _ = backend.cache.withLock { $0.kept.truncate(to: start, in: context) } },
                finish: { context, index, seconds in
                    if trimming, let store = backend.promptStates {
                        PromptStates.keep(prompt, evaluated: prompt.count - self.reusedPromptTokenCount, of: backend.sequence, store: store,
                                          in: context)
                    }
                    guard outputs > 1 else {
                        if timesStep { self.drafter?.timed(seconds) }
                        switch graphChoice {
                        case .best?:
                            if let token = backend.engine.tokenChosenOnBackend(at: index) { return sampler.outcome(of: token, model: model) }
                        case .candidates?:
                            backend.engine.countChoiceAmongGraphCandidates(at: index)
                            return sampler.chooseAmongGraphCandidates(context, at: index, model: model)
                        case nil:
                            break
                        }
                        return try sampler.step(context, at: index, model: model, adjustingLogits: adjust.value)
                    }
                    let copying = ContinuousClock.now
                    self.chunk.keep(context, last: index, count: outputs, inPlace: inPlace)
                    if timesStep { self.drafter?.timed(seconds + (ContinuousClock.now - copying).seconds) }
                    let first = self.forcer?.isForcing == true ? self.forcer!.indexInChunk : 0
                    return try self.chunk.step(first, sampler: sampler, model: model, adjustingLogits: adjust.value)
                },
                resume: { continuation.resume(with: $0) })
            backend.engine.step(request)
        }
    }

    /// How a step of `outputs` scored tokens has llama.cpp choose its token in its graph
    /// (``ReplySampler/graphChoice``: the best score, or a few best among which the reply's chain
    /// chooses), or `nil` to copy the scores: a step that no hook, recording or draft reads the
    /// scores of, alone in its context (several sequences would each change llama.cpp's graphs as
    /// their replies come and go), on this machine as it is (a simulated one moves the scores
    /// after the decode).
    /// Once a step needs the scores, the rest of the reply copies them too: every change of the
    /// sequence's sampler makes llama.cpp plan its graphs again (a drafting reply would otherwise
    /// change it at each draft).
    /// On the CPU only the few best scores are chosen among there (``GraphChoicePolicy``).
    private func graphChoice(outputs: Int, adjustingLogits: ((any LogitsView) throws -> Void)?) -> GraphChoice? {
        guard !leftBackendChoice else { return nil }
        var choice = readsChunksInPlace && backend.engine.machine.isReal && outputs == 1 && adjustingLogits == nil && forcer == nil
            ? sampler.graphChoice : nil
        switch backend.graphChoices {
        case .never: choice = nil
        case .whereTheyPay where choice == .best && !model.placement.scoresOnGPU: choice = nil
        case .whereTheyPay, .always: break
        }
        leftBackendChoice = choice == nil
        return choice
    }

    func keepRewindPoints() throws { sampler.rewinds.keep() }

    func rewind(to position: Int) throws {
        // A position a shift dropped from the cache cannot be taken back to.
        guard replyStart + position >= window.map(\.kept) ?? 0, sampler.rewinds.rewind(to: position) else {
            throw LlamaError.rewindFailed(position: position)
        }
        forcer?.rewind(to: position)
        drafter?.rewind(toContextLength: promptTokenCount + position)
        pending = nil
        sampled = position
        cut = replyStart + position
    }

    func forgetRewindPoints(before position: Int) throws { sampler.rewinds.forget(before: position) }

    func close() {
        // The cache as generating would leave it, for the next prompt to be evaluated alike: the
        // tokens past that (a forced chunk's, a draft's, or those a cut not yet made would drop)
        // are forgotten, and leave the cache when the next prompt is prepared.
        var length = cut
        if let forcer, forcer.isForcing {
            length = replyStart + forcer.generatedCacheLength
        } else if drafter != nil {
            length = min(length ?? .max, replyStart + max(sampled - 1, 0))
        }
        if let length { backend.cache.withLock { $0.kept.tokens.removeSubrange(min(length, $0.kept.tokens.count)...) } }
        backend.endReply()
    }
}

/// What a scoring step gives back from the engine's thread.
private final class ScoredBox {
    var tokens: [TokenLogprob] = []
}

/// A value handed to the engine's thread while its owner waits for the result, so it is never
/// used from two threads at once.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
