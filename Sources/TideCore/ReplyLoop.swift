/// Runs one reply through the pipeline: pre-prompt hooks, then per token logits hooks, sampling,
/// UTF-8 assembly, stop conditions and per-token hooks, and finally post-reply hooks.
///
/// The loop keeps what was produced in its properties, so a caller can store a partial reply
/// when decoding throws part-way.
struct ReplyLoop {
    let backend: any ChatBackend
    let hooks: HookChain
    let overflowPolicy: ContextOverflowPolicy
    let emit: (ReplyEvent) -> Void

    /// Text produced so far, before per-token hooks.
    private(set) var rawText = ""
    /// Text shown so far, after per-token hooks.
    private(set) var shownText = ""
    private var statistics = GenerationStatistics()
    private let clock = ContinuousClock()
    private let start = ContinuousClock.now

    init(backend: any ChatBackend, hooks: HookChain, overflowPolicy: ContextOverflowPolicy,
         emit: @escaping (ReplyEvent) -> Void)
    {
        self.backend = backend
        self.hooks = hooks
        self.overflowPolicy = overflowPolicy
        self.emit = emit
    }

    /// Produces the reply to the last of `messages`, emitting text as it goes.
    mutating func run(messages: [ChatMessage], parameters: GenerationParameters) async throws -> ReplySummary {
        try backend.checkSupport(of: hooks.active(at: .logits))
        var prompt = PromptContext(messages: messages, parameters: parameters)
        if let (name, answer) = try runPromptHooks(&prompt) {
            rawText = answer
            let progress = ReplyProgress(text: answer, tokenCount: 0, elapsed: clock.now - start)
            try show(answer, token: TokenInfo(id: nil, text: answer, index: 0), progress: progress)
            try showFinal()
            return try finish(.answeredByHook(name: name))
        }
        try prompt.parameters.validate()
        let fitted = try await overflowPolicy.fit(prompt.messages, parameters: prompt.parameters, backend: backend)
        let decoder: any ReplyDecoder
        do {
            decoder = try await backend.startReply(to: fitted, parameters: prompt.parameters)
        } catch is CancellationError {
            // Stopped before the reply began (a server slow to answer): as if stopped at its first token.
            try showFinal()
            return try finish(.cancelled)
        }
        defer { decoder.close() }
        statistics.promptTokens = decoder.promptTokenCount
        statistics.reusedPromptTokens = decoder.reusedPromptTokenCount
        let reason = try await decode(with: decoder, parameters: prompt.parameters)
        try showFinal()
        return try finish(reason)
    }

    /// Runs pre-prompt hooks in order; returns the first direct answer, with who gave it.
    private mutating func runPromptHooks(_ prompt: inout PromptContext) throws -> (String, String)? {
        defer { reportFailures() }
        for hook in hooks.active(at: .prompt) {
            if case .answer(let text) = try hooks.call(hook, at: .prompt, { try hook.onPrompt(&prompt) }) {
                return (hook.name, text)
            }
        }
        return nil
    }

    /// The token loop. Returns why it ended.
    private mutating func decode(with decoder: any ReplyDecoder, parameters: GenerationParameters)
        async throws -> StopReason
    {
        var assembler = UTF8Assembler()
        var matcher = StopStringMatcher(parameters.stop + backend.endOfGenerationStrings)
        var generated = 0
        var firstToken: ContinuousClock.Instant?
        defer { if let firstToken { statistics.decodeDuration = clock.now - firstToken } }

        var stopReason: StopReason
        var lastID: Int32?
        while true {
            if Task.isCancelled { stopReason = .cancelled; break }
            let step = try await decoder.nextToken(adjustingLogits: logitsAdjuster(heldText: matcher.heldText, generated: generated))
            reportFailures()
            guard case .token(let id, let bytes) = step else {
                // A stream cut short by the stop (a remote reply's) ends as a stop, not as the model's end.
                stopReason = switch step {
                case _ where Task.isCancelled: .cancelled
                case .endOfGeneration: .endOfGeneration
                case .everyTokenBanned: .everyTokenBanned
                default: .contextFull
                }
                break
            }
            if firstToken == nil {
                firstToken = clock.now
                statistics.timeToFirstToken = clock.now - start
            }
            generated += 1
            statistics.generatedTokens = generated
            lastID = id
            let match = matcher.append(assembler.append(bytes))
            rawText += match.released
            let progress = ReplyProgress(text: rawText + matcher.heldText, tokenCount: generated, elapsed: clock.now - start)
            if let stop = match.stop {
                try show(match.released, token: TokenInfo(id: id, text: match.released, index: generated - 1), progress: progress)
                return backend.endOfGenerationStrings.contains(stop) ? .endOfGeneration : .stopString(stop)
            }
            let hookStop = try runStopHooks(progress)
            var pending = match.released
            if hookStop != nil || generated >= parameters.maxTokens {
                let tail = matcher.flush() + assembler.finish()
                rawText += tail
                pending += tail
            }
            let tokenStop = try show(pending, token: TokenInfo(id: id, text: pending, index: generated - 1), progress: progress)
            if let reason = hookStop ?? tokenStop { return reason }
            if generated >= parameters.maxTokens { return .maxTokens }
        }
        let tail = matcher.flush() + assembler.finish()
        rawText += tail
        try show(tail, token: TokenInfo(id: lastID, text: tail, index: max(0, generated - 1)),
                 progress: ReplyProgress(text: rawText, tokenCount: generated, elapsed: clock.now - start))
        return stopReason
    }

    /// The closure that lets logits hooks see this step's scores, or `nil` when none is active.
    private func logitsAdjuster(heldText: @autoclosure () -> String, generated: Int) -> ((any LogitsView) throws -> Void)? {
        guard hooks.has(.logits) else { return nil }
        let progress = ReplyProgress(text: rawText + heldText(), tokenCount: generated, elapsed: clock.now - start)
        let hooks = self.hooks
        return { view in
            for hook in hooks.active(at: .logits) {
                _ = try hooks.call(hook, at: .logits) { try hook.onLogits(view, reply: progress) }
            }
        }
    }

    /// Asks the stop-condition hooks in order; the first reason wins.
    private mutating func runStopHooks(_ progress: ReplyProgress) throws -> StopReason? {
        defer { reportFailures() }
        for hook in hooks.active(at: .stop) {
            if let reason = try hooks.call(hook, at: .stop, { try hook.shouldStop(progress) }) ?? nil {
                return .hook(name: hook.name, reason: reason)
            }
        }
        return nil
    }

    /// Passes text through the per-token hooks and emits what survives. Returns a stop a hook requested.
    @discardableResult
    private mutating func show(_ text: String, token: TokenInfo, progress: ReplyProgress) throws -> StopReason? {
        guard !text.isEmpty || token.isFinal else { return nil }
        defer { reportFailures() }
        var piece = text
        var stop: StopReason?
        for hook in hooks.active(at: .token) where token.isFinal || !piece.isEmpty {
            var info = token
            info.text = piece
            guard let decision = try hooks.call(hook, at: .token, { try hook.onToken(info, reply: progress) })
            else { continue }
            piece = decision.replacement ?? piece
            if stop == nil, let reason = decision.stopReason { stop = .hook(name: hook.name, reason: reason) }
        }
        if !piece.isEmpty {
            shownText += piece
            emit(.text(piece))
        }
        return stop
    }

    /// The call after the last token, so per-token filters can release text they held back.
    private mutating func showFinal() throws {
        let count = statistics.generatedTokens
        try show("", token: TokenInfo(id: nil, text: "", index: count, isFinal: true),
                 progress: ReplyProgress(text: rawText, tokenCount: count, elapsed: clock.now - start))
    }

    /// Runs the post-reply hooks and builds the summary.
    private mutating func finish(_ reason: StopReason) throws -> ReplySummary {
        defer { reportFailures() }
        statistics.hookDuration = hooks.duration
        var reply = FinishedReply(rawText: rawText, shownText: shownText, storedText: shownText,
                                  stopReason: reason, statistics: statistics)
        for hook in hooks.active(at: .reply) {
            _ = try hooks.call(hook, at: .reply) { try hook.onReply(&reply) }
        }
        statistics.hookDuration = hooks.duration
        return ReplySummary(stopReason: reason, statistics: statistics, rawText: rawText,
                            text: shownText, storedText: reply.storedText)
    }

    private func reportFailures() {
        for failure in hooks.takeFailures() { emit(.hookFailure(failure)) }
    }
}
