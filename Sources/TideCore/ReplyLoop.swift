/// Runs one reply through the pipeline: pre-prompt hooks, then per token logits hooks, sampling,
/// UTF-8 assembly, stop conditions and per-token hooks, and finally post-reply hooks.
///
/// The loop composes pieces that each do one job and are read on their own: a thinking model's
/// reasoning split from its answer (``ReasoningPhase``), tool calls captured from their marker on
/// (``ToolCallCapture``), text held back while it may start a stop string (``HeldText``), what a
/// rewind may take back (``RewindLedger``); the hooks are called from `ReplyLoopHooks.swift`.
///
/// The loop keeps what was produced in its properties, so a caller can store a partial reply
/// when decoding throws part-way.
struct ReplyLoop {
    let backend: any ChatBackend
    let hooks: HookChain
    let overflowPolicy: ContextOverflowPolicy
    /// Where determined replies are kept and given again; `nil` for none.
    let cache: (any ReplyCache)?
    let emit: (ReplyEvent) -> Void

    /// Text produced so far, before per-token hooks.
    var rawText = ""
    /// Text shown so far, after per-token hooks.
    var shownText = ""
    /// The reply's tool calls as written (held back, never shown).
    private var capture = ToolCallCapture(marker: nil)
    /// A thinking model's reasoning, until its answer begins; `nil` for other models.
    private var reasoning: ReasoningPhase?
    /// The answer's text on its way out, held while it may start a stop string.
    var text = HeldText(stops: [])
    /// What rewinds may take back, and the text not yet shown.
    var ledger = RewindLedger(window: 0)
    /// Tokens generated so far (after rewinds, those kept).
    var generated = 0
    /// The last token kept; `nil` after a rewind.
    var lastID: Int32?
    var statistics = GenerationStatistics()
    /// The most tokens the reply may generate.
    private var maxTokens = 0
    /// When the first token came.
    private var firstTokenTime: ContinuousClock.Instant?
    /// The log-probability of each token generated so far, by position (`nil` for a reasoning
    /// token's), when the reply asks for them.
    var tokenLogprobs: [TokenLogprob?] = []
    /// How many positions' log-probabilities have gone out with the text.
    var sentLogprobs = 0
    /// The log-probabilities sent, in order.
    var shownLogprobs: [TokenLogprob] = []
    /// The prompt's tokens scored, when the reply asks for them.
    var promptLogprobs: PromptLogprobs?
    let clock = ContinuousClock()
    let start = ContinuousClock.now

    init(backend: any ChatBackend, hooks: HookChain, overflowPolicy: ContextOverflowPolicy, cache: (any ReplyCache)? = nil,
         emit: @escaping (ReplyEvent) -> Void)
    {
        self.backend = backend
        self.hooks = hooks
        self.overflowPolicy = overflowPolicy
        self.cache = cache
        self.emit = emit
    }

    /// Produces the reply to the last of `messages`, emitting text as it goes. With `recorded`,
    /// a reply recorded earlier, the backend checks it by teacher forcing when it can.
    mutating func run(messages: [ChatMessage], parameters: GenerationParameters, forcing recorded: String? = nil) async throws
        -> ReplySummary
    {
        try backend.checkSupport(of: hooks.active(at: .logits) + hooks.active(at: .stop))
        var prompt = PromptContext(messages: messages, parameters: parameters)
        if let (name, answer) = try runPromptHooks(&prompt) {
            rawText = answer
            let progress = ReplyProgress(text: answer, tokenCount: 0, elapsed: clock.now - start)
            try show(answer, token: TokenInfo(id: nil, text: answer, index: 0), progress: progress)
            try showFinal()
            // Decided by the plugin alone, which a case reused whole answers for (docs/conversations.md).
            if cache != nil { statistics.determined = true }
            return try finish(.answeredByHook(name: name), format: nil)
        }
        var parameters = prompt.parameters
        parameters.shiftsContext = overflowPolicy == .shift
        try parameters.validate()
        try ToolsUnavailable.check(parameters, on: backend)
        if parameters.logprobs != nil || parameters.scoresPrompt, !backend.supportsLogits { throw LogprobsUnsupported() }
        // Read once: the reader offers the tools in the prompt, and reads the calls at the end.
        let reader = backend.toolCallReader
        let messages = reader?.prompt(prompt.messages, offering: parameters.offersTools ? parameters.tools : []) ?? prompt.messages
        let skipped = recorded == nil ? nil : TeacherForcing.skipped(on: backend, parameters: parameters)
        let decoder: any ReplyDecoder
        var recording: (RecordingReplyDecoder, ReplyCacheKey)?
        do {
            // Counting the prompt's tokens waits on the backend too (a local model's prompt threads).
            let fitted = try await overflowPolicy.fit(messages, parameters: parameters, backend: backend)
            let forcing = skipped == nil ? recorded : nil
            let key = try await cacheKey(fitted, parameters: parameters, forcing: forcing)
            if let key, let kept = await cache?.reply(for: key) {
                decoder = ReplayedReplyDecoder(kept)
                statistics.cached = ReplyCacheHit(seconds: kept.seconds)
            } else {
                let started = if let forcing {
                    try await backend.startReply(to: fitted, parameters: parameters, forcing: forcing)
                } else {
                    try await backend.startReply(to: fitted, parameters: parameters)
                }
                if let key {
                    let recorder = RecordingReplyDecoder(started)
                    recording = (recorder, key)
                    decoder = recorder
                } else {
                    decoder = started
                }
            }
        } catch is CancellationError {
            // Stopped before the reply began (a server slow to answer): as if stopped at its first token.
            try showFinal()
            return try finish(.cancelled, format: parameters.format)
        }
        defer { decoder.close() }
        statistics.promptTokens = decoder.promptTokenCount
        if parameters.scoresPrompt {
            let scored = try await decoder.scorePrompt(top: parameters.logprobs ?? 0)
            promptLogprobs = scored
            emit(.promptLogprobs(scored))
        }
        capture = ToolCallCapture(marker: parameters.offersTools ? reader?.marker : nil)
        // A reply held to a grammar from its first token (a format, a required tool call) has no
        // room for a reasoning block, and a plain-text continuation (`rawPrompt`) has no turns:
        // they are all answer.
        let grammarFromStart = parameters.format != nil || (parameters.offersTools && ![.auto, .none].contains(parameters.toolChoice))
        reasoning = grammarFromStart || parameters.rawPrompt ? nil
            : backend.reasoningMarkers.map { ReasoningPhase(markers: $0, budget: parameters.reasoningBudget) }
        let reason = try await decode(with: decoder, parameters: parameters)
        // Read after decoding: a backend knows for sure only once its cache has been trimmed.
        statistics.reusedPromptTokens = decoder.reusedPromptTokenCount
        statistics.drafting = decoder.drafting
        statistics.steering = decoder.steering
        try showFinal()
        var summary = try finish(reason, format: parameters.format)
        summary.teacherForcing = skipped ?? decoder.teacherForcing
        switch capture.read(with: reader, endedBy: reason) {
        case .success(let calls): summary.toolCalls = calls
        case .failure(let problem): summary.toolCallProblem = problem.description
        case nil where parameters.offersTools:
            do {
                summary.toolCalls = try decoder.toolCalls()
            } catch {
                summary.toolCallProblem = error.description
            }
        case nil: break
        }
        if let (recorder, key) = recording, reason != .cancelled, summary.toolCallProblem == nil {
            var kept = recorder.recorded
            kept.teacherForcing = summary.teacherForcing
            kept.seconds = (clock.now - start).seconds
            await cache?.store(kept, for: key)
        }
        if cache != nil {
            summary.statistics.determined = parameters.isReproducible && reason != .cancelled && summary.toolCallProblem == nil
        }
        return summary
    }

    /// The key the reply is kept under in the cache, for a reply the cache may keep: one fully
    /// determined whose hooks do not read the model's scores (which a reply given again has
    /// not); `forcing`, the recording it is checked against, is part of the key.
    private func cacheKey(_ messages: [ChatMessage], parameters: GenerationParameters, forcing: String?) async throws
        -> ReplyCacheKey?
    {
        guard cache != nil, parameters.isReproducible, hooks.active(at: .logits).isEmpty else { return nil }
        return ReplyCacheKey(prompt: try await backend.promptFingerprint(for: messages, rawPrompt: parameters.rawPrompt),
                             parameters: parameters, forcing: forcing)
    }

    /// The token loop: each token's text goes to the tool calls once they have begun, else
    /// through the reasoning split, then through the stop strings, the stop hooks (which may
    /// rewind) and out to the token hooks. Returns why the reply ended, which ``ending(after:)``
    /// alone decides.
    private mutating func decode(with decoder: any ReplyDecoder, parameters: GenerationParameters) async throws -> StopReason {
        text = HeldText(stops: parameters.stop + backend.endOfGenerationStrings + (capture.marker.map { [$0] } ?? []))
        let windows = try rewindWindows()
        ledger = RewindLedger(window: windows.values.max() ?? 0)
        if ledger.window > 0 { try decoder.keepRewindPoints() }
        maxTokens = parameters.maxTokens
        defer { if let firstTokenTime { statistics.decodeDuration = clock.now - firstTokenTime } }
        // Before the first token, a budget of none ends the reply at once.
        var outcome = StepOutcome.next(finishing: true)
        while true {
            if let (reason, finishing) = ending(after: outcome) { return finishing ? try end(reason) : reason }
            outcome = try await step(with: decoder, parameters: parameters, windows: windows)
        }
    }

    /// What one step of the token loop left to decide.
    private enum StepOutcome {
        /// The reply goes on, unless its token budget is spent; then its held text is finished
        /// first (`finishing`), or is out already.
        case next(finishing: Bool)
        /// The reply goes on whatever the budget: a rewind took tokens back.
        case again
        /// The reply ends for `reason`; its held text is finished first (`finishing`), or is out already.
        case end(StopReason, finishing: Bool)
    }

    /// Whether the reply ends after a step, and why: the one place that decides it.
    private func ending(after outcome: StepOutcome) -> (StopReason, finishing: Bool)? {
        switch outcome {
        case .end(let reason, let finishing): (reason, finishing)
        case .next(let finishing) where budgetSpent: (.maxTokens, finishing)
        case .next, .again: nil
        }
    }

    /// Whether the reply has generated all the tokens it may.
    private var budgetSpent: Bool { generated >= maxTokens }

    /// One token: sampled (after the logits hooks), then given to the tool calls, the reasoning
    /// split, the stop strings and the hooks.
    private mutating func step(with decoder: any ReplyDecoder, parameters: GenerationParameters,
                               windows: [ObjectIdentifier: Int]) async throws -> StepOutcome {
        if Task.isCancelled { return .end(.cancelled, finishing: true) }
        let vocabulary = backend.vocabulary
        let forced = reasoning?.forcedToken(vocabulary: vocabulary)
        // Inside a tool call the grammar decides: hooks neither see nor change it.
        let step: DecodedToken
        do {
            step = try await decoder.nextToken(adjustingLogits: capture.isCapturing ? nil : logitsAdjuster(forced: forced))
        } catch is CancellationError {
            // Stopped while the backend waited (a server's stream): as stopped between two tokens.
            reportFailures()
            return .end(.cancelled, finishing: true)
        }
        reportFailures()
        guard case .token(let id, let bytes) = step else {
            if step == .endOfGeneration, parameters.logprobs != nil, let scored = decoder.lastLogprob {
                // The token that ends the reply is scored too, after its text (as llama-server
                // lists it, and as evaluation harnesses count on, which score the tokens
                // before the one a request generates).
                tokenLogprobs.removeSubrange(min(generated, tokenLogprobs.count)...)
                tokenLogprobs.append(scored)
            }
            return .end(Task.isCancelled ? .cancelled : StopReason(ending: step), finishing: true)
        }
        if firstTokenTime == nil {
            firstTokenTime = clock.now
            statistics.timeToFirstToken = clock.now - start
        }
        if parameters.logprobs != nil {
            guard let scored = decoder.lastLogprob else { throw LogprobsUnsupported() }
            // Positions after a rewind's are sampled again.
            tokenLogprobs.removeSubrange(min(generated, tokenLogprobs.count)...)
            tokenLogprobs.append(reasoning?.isActive == true ? nil : scored)
        }
        if capture.isCapturing {
            let piece = text.characters(bytes)
            capture.append(piece)
            if !piece.isEmpty { emit(.toolCallText(piece)) }
            count(id)
            return .next(finishing: false)
        }
        // Cut inside the reasoning: what it held back is given at the end.
        guard let answer = answerText(id, bytes, forced: forced) else { return .next(finishing: true) }
        let match = text.answer(answer)
        rawText += match.released
        let progress = ReplyProgress(text: rawText + text.held, tokenCount: generated, elapsed: clock.now - start,
                                     reasoning: reasoningText)
        var piece = RewindLedger.Piece(index: generated - 1, id: id, text: match.released, rawEnd: rawText.utf8.count)
        // Without rewinding hooks, a stop string ends the reply before stop hooks are asked; with
        // them, the text before the stop string may complete what a hook takes back.
        var hookStop: StopReason?
        switch match.stop != nil && ledger.window == 0 ? .proceed : try runStopHooks(progress) {
        case .rewind(let hook, let rewind):
            switch try takeBack(rewind, by: hook, window: windows[ObjectIdentifier(hook)] ?? 0, progress: progress, decoder: decoder,
                                maxRewinds: parameters.maxRewinds) {
            case .refused: break
            case .done: return .again
            case .tooMany: return .end(.rewindLimit, finishing: false)
            }
        case .stop(let reason): hookStop = reason
        case .proceed: break
        }
        // A stop string ends the reply, unless a rewind took it back above; a tool call's marker
        // ends what is shown, and the rest of the reply is the calls.
        if let stop = match.stop {
            ledger.queue(piece)
            try release(progress: progress, everything: true)
            guard stop == capture.marker else {
                return .end(backend.endOfGenerationStrings.contains(stop) ? .endOfGeneration : .stopString(stop), finishing: false)
            }
            capture.begin(following: match.following)
            emit(.toolCallText(stop + match.following))
            return .next(finishing: false)
        }
        // The last token's text goes out whole, what was held back for a stop string with it.
        let last = hookStop != nil || budgetSpent
        if last {
            let tail = capture.shown(text.flush())
            rawText += tail
            piece.text += tail
            piece.rawEnd = rawText.utf8.count
        }
        ledger.queue(piece)
        let tokenStop = try release(progress: progress, everything: last)
        if ledger.window > 0 { try decoder.forgetRewindPoints(before: ledger.firstRewindable ?? generated) }
        if let reason = hookStop ?? tokenStop { return .end(reason, finishing: false) }
        return .next(finishing: false)
    }

    /// Counts the token `id` as generated.
    private mutating func count(_ id: Int32?) {
        generated += 1
        statistics.generatedTokens = generated
        lastID = id
    }

    /// The answer text of the token `id`, whose bytes are `bytes` (sampled where `forced` was
    /// forced): through the reasoning split while a thinking model reasons (`nil` while the
    /// token gave no answer), else as it comes, what a rewind needs recorded first.
    private mutating func answerText(_ id: Int32?, _ bytes: [UInt8], forced: Int32?) -> String? {
        guard reasoning?.isActive == true else {
            if ledger.window > 0 {
                ledger.record(RewindLedger.Entry(index: generated, id: id, textStart: rawText.utf8.count + text.held.utf8.count,
                                                 rawLength: rawText.utf8.count, text: text))
            }
            count(id)
            return text.characters(bytes)
        }
        count(id)
        let split = reasoning!.take(id, text: text.characters(bytes), forced: forced)
        statistics.reasoningTokens = reasoning!.tokens
        if !split.reasoning.isEmpty { emit(.reasoning(split.reasoning)) }
        // The token's answer text, when it ends a reasoning block (it is not one rewinds reach).
        return split.answer.isEmpty ? nil : split.answer
    }

    /// The end of a reply that stopped for `reason` at a step without text (its end, a full
    /// context, a cancel…) or inside its reasoning: the characters and text still held are given
    /// (or kept as the calls, when they began).
    private mutating func end(_ reason: StopReason) throws -> StopReason {
        guard !capture.isCapturing else {
            let piece = text.finishCharacters()
            capture.append(piece)
            if !piece.isEmpty { emit(.toolCallText(piece)) }
            return reason
        }
        var ending = text.finishCharacters()
        if reasoning != nil {
            let finished = reasoning!.finish(ending)
            for piece in finished.reasoning { emit(.reasoning(piece)) }
            ending = finished.answer
        }
        let tail = capture.shown(text.release(ending: ending))
        rawText += tail
        let progress = ReplyProgress(text: rawText, tokenCount: generated, elapsed: clock.now - start, reasoning: reasoningText)
        ledger.queue(RewindLedger.Piece(index: max(0, generated - 1), id: lastID, text: tail, rawEnd: rawText.utf8.count))
        try release(progress: progress, everything: true)
        sendLogprobs(through: generated)
        return reason
    }

    /// The reasoning so far (empty for a model that does not think).
    var reasoningText: String { reasoning?.reasoning ?? "" }

    /// The reasoning as the history keeps it.
    var trimmedReasoning: String { reasoning?.trimmedReasoning ?? "" }
}
