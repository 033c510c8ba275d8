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
    /// The reply's tool calls as written, from their marker on (held back, never shown).
    private var toolText: String?
    /// Where a thinking model's reasoning ends and its answer begins; `nil` for other models.
    private var splitter: ReasoningSplitter?
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
            return try finish(.answeredByHook(name: name), format: nil)
        }
        try prompt.parameters.validate()
        let reader = backend.toolCallReader
        if prompt.parameters.tools.isEmpty, ![.auto, .none].contains(prompt.parameters.toolChoice) {
            throw ToolsUnavailable.none(prompt.parameters.toolChoice)
        }
        if prompt.parameters.offersTools {
            guard reader != nil || backend.offersToolsItself else { throw ToolsUnavailable.backend }
            if prompt.parameters.format != nil { throw ToolsUnavailable.withFormat }
        }
        let messages = reader?.prompt(prompt.messages, offering: prompt.parameters.offersTools ? prompt.parameters.tools : [])
            ?? prompt.messages
        let fitted = try await overflowPolicy.fit(messages, parameters: prompt.parameters, backend: backend)
        let decoder: any ReplyDecoder
        var skipped: TeacherForcing?
        if recorded != nil {
            if let why = backend.teacherForcingUnavailable(tolerance: prompt.parameters.tolerance) { skipped = .skipped(.unavailable(why)) }
            else if !prompt.parameters.isReproducible { skipped = .skipped(.unseeded) }
        }
        do {
            if let recorded, skipped == nil {
                decoder = try await backend.startReply(to: fitted, parameters: prompt.parameters, forcing: recorded)
            } else {
                decoder = try await backend.startReply(to: fitted, parameters: prompt.parameters)
            }
        } catch is CancellationError {
            // Stopped before the reply began (a server slow to answer): as if stopped at its first token.
            try showFinal()
            return try finish(.cancelled, format: prompt.parameters.format)
        }
        defer { decoder.close() }
        statistics.promptTokens = decoder.promptTokenCount
        // A reply held to a grammar from its first token (a format, a required tool call) has no
        // room for a reasoning block, and a plain-text continuation (`rawPrompt`) has no turns:
        // they are all answer.
        let grammarFromStart = prompt.parameters.format != nil
            || (prompt.parameters.offersTools && ![.auto, .none].contains(prompt.parameters.toolChoice))
        splitter = grammarFromStart || prompt.parameters.rawPrompt ? nil : backend.reasoningMarkers.map(ReasoningSplitter.init(markers:))
        let reason = try await decode(with: decoder, parameters: prompt.parameters)
        // Read after decoding: a backend knows for sure only once its cache has been trimmed.
        statistics.reusedPromptTokens = decoder.reusedPromptTokenCount
        statistics.drafting = decoder.drafting
        statistics.steering = decoder.steering
        try showFinal()
        var summary = try finish(reason, format: prompt.parameters.format)
        summary.teacherForcing = skipped ?? decoder.teacherForcing
        if let toolText, let reader {
            do {
                summary.toolCalls = try reader.calls(in: toolText)
            } catch {
                summary.toolCallProblem = reason == .maxTokens ? "the reply ended (max-tokens) inside a tool call" : error.description
            }
        } else if prompt.parameters.offersTools {
            do {
                summary.toolCalls = try decoder.toolCalls()
            } catch {
                summary.toolCallProblem = error.description
            }
        }
        return summary
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
        let toolMarker = parameters.offersTools ? backend.toolCallReader?.marker : nil
        var matcher = StopStringMatcher(parameters.stop + backend.endOfGenerationStrings + (toolMarker.map { [$0] } ?? []))
        let windows = try rewindWindows()
        var ledger = RewindLedger(window: windows.values.max() ?? 0)
        if ledger.window > 0 { try decoder.keepRewindPoints() }
        var generated = 0
        var firstToken: ContinuousClock.Instant?
        defer { if let firstToken { statistics.decodeDuration = clock.now - firstToken } }

        var stopReason: StopReason
        var lastID: Int32?
        // The close tag's tokens still to force, once the reasoning has used its budget.
        var closing: [Int32]?
        while true {
            if Task.isCancelled { stopReason = .cancelled; break }
            if splitter?.phase == .reasoning, closing == nil, let budget = parameters.reasoningBudget,
               statistics.reasoningTokens >= budget, let markers = splitter?.markers {
                closing = backend.vocabulary?.tokens(of: "\n" + markers.close)
            }
            let forced = splitter?.phase == .reasoning ? closing?.first : nil
            // Inside a tool call the grammar decides: hooks neither see nor change it.
            let adjust = toolText != nil ? nil
                : logitsAdjuster(heldText: matcher.heldText, generated: generated, banned: ledger.bans[generated] ?? [], forced: forced)
            let step = try await decoder.nextToken(adjustingLogits: adjust)
            reportFailures()
            guard case .token(let id, let bytes) = step else {
                // A stream cut short by the stop (a remote reply's) ends as a stop, not as the model's end.
                stopReason = switch step {
                case _ where Task.isCancelled: .cancelled
                case .endOfGeneration: .endOfGeneration
                case .everyTokenBanned: .everyTokenBanned
                case .formatBlocked: .formatBlocked
                default: .contextFull
                }
                break
            }
            if firstToken == nil {
                firstToken = clock.now
                statistics.timeToFirstToken = clock.now - start
            }
            if toolText != nil {
                generated += 1
                statistics.generatedTokens = generated
                toolText! += assembler.append(bytes)
                if generated >= parameters.maxTokens { return .maxTokens }
                continue
            }
            // The token's answer text, when it ends a reasoning block (it is not one rewinds reach).
            var answerPiece: String?
            if let phase = splitter?.phase, !splitter!.isDone {
                generated += 1
                statistics.generatedTokens = generated
                lastID = id
                if let forced { closing = id == forced ? Array(closing!.dropFirst()) : nil }
                let split = splitter!.append(assembler.append(bytes))
                if phase == .reasoning || splitter!.phase == .reasoning { statistics.reasoningTokens += 1 }
                if !split.reasoning.isEmpty { emit(.reasoning(split.reasoning)) }
                guard !split.answer.isEmpty else {
                    // Cut inside the reasoning: what it held back is given after the loop.
                    if generated >= parameters.maxTokens { stopReason = .maxTokens; break }
                    continue
                }
                answerPiece = split.answer
            } else {
                if ledger.window > 0 {
                    ledger.record(RewindLedger.Entry(index: generated, id: id, textStart: rawText.utf8.count + matcher.heldText.utf8.count,
                                                     rawLength: rawText.utf8.count, assembler: assembler, matcher: matcher))
                }
                generated += 1
                statistics.generatedTokens = generated
                lastID = id
            }
            let match = matcher.append(answerPiece ?? assembler.append(bytes))
            rawText += match.released
            let progress = ReplyProgress(text: rawText + matcher.heldText, tokenCount: generated, elapsed: clock.now - start,
                                         reasoning: reasoning)
            let piece = RewindLedger.Piece(index: generated - 1, id: id, text: match.released, rawEnd: rawText.utf8.count)
            // Without rewinding hooks, a stop string ends the reply before stop hooks are asked; with
            // them, the text before the stop string may complete what a hook takes back.
            let outcome: StopOutcome = match.stop != nil && ledger.window == 0 ? .proceed : try runStopHooks(progress)
            var hookStop: StopReason?
            switch outcome {
            case .rewind(let hook, let rewind):
                guard let entry = try checkedRewind(rewind, by: hook, window: windows[ObjectIdentifier(hook)] ?? 0, ledger: ledger,
                                                    progress: progress) else { break }
                // A rewind the decoder cannot make (a point out of its reach) is the hook's failure.
                guard try hooks.call(hook, at: .stop, { try decoder.rewind(to: entry.index) }) != nil else {
                    reportFailures()
                    break
                }
                statistics.rewinds += 1
                statistics.discardedTokens += generated - entry.index
                generated = entry.index
                statistics.generatedTokens = generated
                (assembler, matcher) = (entry.assembler, entry.matcher)
                rawText = String(decoding: rawText.utf8.prefix(entry.rawLength), as: UTF8.self)
                lastID = nil
                var banned = Set(rewind.bannedTokens)
                if rewind.banFirstToken, let first = entry.id { banned.insert(first) }
                ledger.rewind(to: entry, banning: banned)
                if statistics.rewinds > parameters.maxRewinds {
                    _ = try hooks.call(hook, at: .stop) { throw RewindMisuse.tooMany(parameters.maxRewinds) }
                    reportFailures()
                    let tail = matcher.flush() + assembler.finish()
                    rawText += tail
                    ledger.queue(RewindLedger.Piece(index: max(0, generated - 1), id: nil, text: tail, rawEnd: rawText.utf8.count))
                    try release(&ledger, progress: ReplyProgress(text: rawText, tokenCount: generated, elapsed: clock.now - start),
                                everything: true)
                    return .rewindLimit
                }
                continue
            case .stop(let reason): hookStop = reason
            case .proceed: break
            }
            // A stop string ends the reply, unless a rewind took it back above; a tool call's marker
            // ends what is shown, and the rest of the reply is the calls.
            if let stop = match.stop {
                ledger.queue(piece)
                try release(&ledger, progress: progress, everything: true)
                if stop == toolMarker {
                    toolText = stop + match.following
                    if generated >= parameters.maxTokens { return .maxTokens }
                    continue
                }
                return backend.endOfGenerationStrings.contains(stop) ? .endOfGeneration : .stopString(stop)
            }
            var pending = piece
            if hookStop != nil || generated >= parameters.maxTokens {
                let tail = heldCall(matcher.flush() + assembler.finish(), marker: toolMarker)
                rawText += tail
                pending.text += tail
                pending.rawEnd = rawText.utf8.count
            }
            ledger.queue(pending)
            let ending = hookStop != nil || generated >= parameters.maxTokens
            let tokenStop = try release(&ledger, progress: progress, everything: ending)
            if ledger.window > 0 { try decoder.forgetRewindPoints(before: ledger.firstRewindable ?? generated) }
            if let reason = hookStop ?? tokenStop { return reason }
            if generated >= parameters.maxTokens { return .maxTokens }
        }
        if toolText != nil {
            toolText! += assembler.finish()
            return stopReason
        }
        var ending = assembler.finish()
        if splitter != nil, splitter!.phase != .answering {
            // The reply ended inside its reasoning (or before its opening tag was whole).
            let split = splitter!.append(ending)
            let rest = splitter!.finish()
            for text in [split.reasoning, rest.reasoning] where !text.isEmpty { emit(.reasoning(text)) }
            ending = split.answer + rest.answer
        }
        let tail = heldCall(matcher.append(ending).released + matcher.flush(), marker: toolMarker)
        rawText += tail
        let progress = ReplyProgress(text: rawText, tokenCount: generated, elapsed: clock.now - start, reasoning: reasoning)
        ledger.queue(RewindLedger.Piece(index: max(0, generated - 1), id: lastID, text: tail, rawEnd: rawText.utf8.count))
        try release(&ledger, progress: progress, everything: true)
        return stopReason
    }

    /// The text held back at the reply's end, unless it is the start of a tool call's marker: that
    /// is a call cut short (kept as the reply's calls, to be reported), never shown.
    private mutating func heldCall(_ tail: String, marker: String?) -> String {
        guard let marker, !tail.isEmpty, marker.hasPrefix(tail) else { return tail }
        toolText = tail
        return ""
    }

    /// The rewind windows of the enabled stop-condition hooks that may rewind. A hook that
    /// cannot say is reported and disabled; one that rewinds on a backend that cannot is refused.
    private mutating func rewindWindows() throws -> [ObjectIdentifier: Int] {
        defer { reportFailures() }
        var windows: [ObjectIdentifier: Int] = [:]
        for hook in hooks.active(at: .stop) {
            guard let size = try hooks.call(hook, at: .stop, { try hook.rewindWindow }), size > 0 else { continue }
            windows[ObjectIdentifier(hook)] = size
        }
        return windows
    }

    /// The token a hook's rewind takes the reply back to, or `nil` (the hook reported and
    /// disabled) when the rewind reaches past the start of the reply, past the hook's window or
    /// into text already shown.
    private mutating func checkedRewind(_ rewind: Rewind, by hook: any ChatHook, window: Int, ledger: RewindLedger,
                                        progress: ReplyProgress) throws -> RewindLedger.Entry?
    {
        let length = progress.text.utf8.count
        let misuse: RewindMisuse? =
            if rewind.offset < 0 { .beforeTheStart }
            else if rewind.offset >= length { .afterTheEnd(offset: rewind.offset, length: length) }
            else if length - rewind.offset > window { .pastTheWindow(bytes: length - rewind.offset, window: window) }
            else { nil }
        if let misuse {
            _ = try hooks.call(hook, at: .stop) { throw misuse }
            reportFailures()
            return nil
        }
        guard let entry = ledger.entry(at: rewind.offset) else {
            _ = try hooks.call(hook, at: .stop) { throw RewindMisuse.alreadyShown }
            reportFailures()
            return nil
        }
        return entry
    }

    /// Shows the pieces of text that no rewind can reach any more (all of them when
    /// `everything`). Returns a stop a per-token hook requested; the text after it is dropped.
    @discardableResult
    private mutating func release(_ ledger: inout RewindLedger, progress: ReplyProgress, everything: Bool = false) throws -> StopReason? {
        for piece in ledger.release(length: progress.text.utf8.count, everything: everything) {
            // Text a rewind may still take back is not part of what per-token hooks see.
            let shown = ledger.window == 0 ? progress
                : ReplyProgress(text: String(decoding: rawText.utf8.prefix(piece.rawEnd), as: UTF8.self), tokenCount: piece.index + 1,
                                elapsed: progress.elapsed)
            if let stop = try show(piece.text, token: TokenInfo(id: piece.id, text: piece.text, index: piece.index), progress: shown) {
                if ledger.window > 0 { rawText = String(decoding: rawText.utf8.prefix(piece.rawEnd), as: UTF8.self) }
                _ = ledger.release(length: 0, everything: true)
                return stop
            }
        }
        return nil
    }

    /// The closure that lets logits hooks see this step's scores and bans the tokens rewinds
    /// banned at this position, or `nil` when there is nothing to do.
    private func logitsAdjuster(heldText: @autoclosure () -> String, generated: Int,
                                banned: Set<Int32>, forced: Int32?) -> ((any LogitsView) throws -> Void)? {
        guard hooks.has(.logits) || !banned.isEmpty || forced != nil else { return nil }
        let progress = ReplyProgress(text: rawText + heldText(), tokenCount: generated, elapsed: clock.now - start,
                                     reasoning: reasoning)
        let hooks = self.hooks
        return { view in
            for token in banned { view.ban(token) }
            for hook in hooks.active(at: .logits) {
                _ = try hooks.call(hook, at: .logits) { try hook.onLogits(view, reply: progress) }
            }
            // The reasoning budget is spent: its close tag comes next, whatever the scores.
            if let forced { view.bias(forced, by: Self.forcingBias) }
        }
    }

    /// A bias that makes a token certain under any sampler: its probability is then 1 within
    /// float precision.
    static let forcingBias: Float = 1e4

    /// The reasoning so far (empty for a model that does not think).
    private var reasoning: String { splitter?.reasoning ?? "" }

    /// What the stop-condition hooks decided, asked in order: the first stop or rewind wins.
    private enum StopOutcome {
        case proceed
        case stop(StopReason)
        case rewind(any ChatHook, Rewind)

    }

    /// Asks the stop-condition hooks in order; the first to stop or rewind wins.
    private mutating func runStopHooks(_ progress: ReplyProgress) throws -> StopOutcome {
        defer { reportFailures() }
        for hook in hooks.active(at: .stop) {
            switch try hooks.call(hook, at: .stop, { try hook.shouldStop(progress) }) ?? .proceed {
            case .proceed: continue
            case .stop(let reason): return .stop(.hook(name: hook.name, reason: reason))
            case .rewind(let rewind): return .rewind(hook, rewind)
            }
        }
        return .proceed
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

    /// Runs the post-reply hooks and builds the summary of a reply generated under `format`.
    private mutating func finish(_ reason: StopReason, format: ReplyFormat?) throws -> ReplySummary {
        defer { reportFailures() }
        statistics.hookDuration = hooks.duration
        var reply = FinishedReply(rawText: rawText, shownText: shownText, storedText: shownText,
                                  stopReason: reason, statistics: statistics, reasoning: splitter?.trimmedReasoning ?? "")
        for hook in hooks.active(at: .reply) {
            _ = try hooks.call(hook, at: .reply) { try hook.onReply(&reply) }
        }
        statistics.hookDuration = hooks.duration
        var summary = ReplySummary(stopReason: reason, statistics: statistics, rawText: rawText,
                                   text: shownText, storedText: reply.storedText, format: format)
        summary.reasoning = reply.reasoning
        return summary
    }

    private func reportFailures() {
        for failure in hooks.takeFailures() { emit(.hookFailure(failure)) }
    }
}
