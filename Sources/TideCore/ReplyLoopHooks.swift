/// The hooks' part of a reply (``ReplyLoop``): each kind of hook called in order, its failures
/// reported, and the text it may still change held back from it.
extension ReplyLoop {
    /// Runs pre-prompt hooks in order; returns the first direct answer, with who gave it.
    mutating func runPromptHooks(_ prompt: inout PromptContext) throws -> (String, String)? {
        defer { reportFailures() }
        for hook in hooks.active(at: .prompt) {
            let original = prompt
            let decision = try hooks.call(hook, at: .prompt,
                                          given: "\(prompt.messages.count) messages, the last \(HookCall.excerpt(prompt.messages.last?.content ?? ""))",
                                          outcome: { $0.traced + (prompt == original ? "" : ", the prompt edited") }) { try hook.onPrompt(&prompt) }
            if case .answer(let text) = decision {
                return (hook.name, text)
            }
        }
        return nil
    }

    /// The rewind windows of the enabled stop-condition hooks that may rewind. A hook that
    /// cannot say is reported and disabled; one that rewinds on a backend that cannot is refused.
    mutating func rewindWindows() throws -> [ObjectIdentifier: Int] {
        defer { reportFailures() }
        var windows: [ObjectIdentifier: Int] = [:]
        for hook in hooks.active(at: .stop) {
            guard let size = try hooks.charge(hook, at: .stop, { try hook.rewindWindow }), size > 0 else { continue }
            windows[ObjectIdentifier(hook)] = size
        }
        return windows
    }

    /// Shows the pieces of text that no rewind can reach any more (all of them when
    /// `everything`). Returns a stop a per-token hook requested; the text after it is dropped.
    @discardableResult
    mutating func release(progress: ReplyProgress, everything: Bool = false) throws -> StopReason? {
        for piece in ledger.release(length: progress.text.utf8.count, everything: everything) {
            sendLogprobs(through: piece.index)
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

    /// Sends the log-probabilities of the positions up to `index` not yet sent, before the text
    /// they make.
    mutating func sendLogprobs(through index: Int) {
        guard sentLogprobs <= index, sentLogprobs < tokenLogprobs.count else { return }
        let scored = tokenLogprobs[sentLogprobs...min(index, tokenLogprobs.count - 1)].compactMap { $0 }
        sentLogprobs = index + 1
        guard !scored.isEmpty else { return }
        shownLogprobs += scored
        emit(.logprobs(scored))
    }

    /// The closure that lets logits hooks see this step's scores, bans the tokens rewinds banned
    /// at this position and forces `forced`, or `nil` when there is nothing to do.
    func logitsAdjuster(forced: Int32?) -> ((any LogitsView) throws -> Void)? {
        let banned = ledger.bans[generated] ?? []
        guard hooks.has(.logits) || !banned.isEmpty || forced != nil else { return nil }
        let progress = ReplyProgress(text: rawText + text.held, tokenCount: generated, elapsed: clock.now - start,
                                     reasoning: reasoningText)
        let hooks = self.hooks
        let position = generated
        return { view in
            for token in banned { view.ban(token) }
            for hook in hooks.active(at: .logits) {
                let decisions = hooks.trace == nil ? nil : LogitsDecisions(view)
                _ = try hooks.call(hook, at: .logits, position: position, given: HookCall.excerpt(progress.text, end: true),
                                   outcome: { decisions?.description ?? "" }) { try hook.onLogits(decisions ?? view, reply: progress) }
            }
            // The reasoning budget is spent: its close tag comes next, whatever the scores.
            if let forced { view.bias(forced, by: Self.forcingBias) }
        }
    }

    /// A bias that makes a token certain under any sampler: its probability is then 1 within
    /// float precision.
    static let forcingBias: Float = 1e4

    /// What the stop-condition hooks decided, asked in order: the first stop or rewind wins.
    enum StopOutcome {
        case proceed
        case stop(StopReason)
        case rewind(any ChatHook, Rewind)
    }

    /// Asks the stop-condition hooks in order; the first to stop or rewind wins.
    mutating func runStopHooks(_ progress: ReplyProgress) throws -> StopOutcome {
        defer { reportFailures() }
        for hook in hooks.active(at: .stop) {
            let decision = try hooks.call(hook, at: .stop, position: progress.tokenCount - 1, given: HookCall.excerpt(progress.text, end: true),
                                          outcome: { $0.traced(over: progress.text) }) { try hook.shouldStop(progress) }
            switch decision ?? .proceed {
            case .proceed: continue
            case .stop(let reason): return .stop(.hook(name: hook.name, reason: reason))
            case .rewind(let rewind): return .rewind(hook, rewind)
            }
        }
        return .proceed
    }

    /// Passes text through the per-token hooks and emits what survives. Returns a stop a hook requested.
    @discardableResult
    mutating func show(_ text: String, token: TokenInfo, progress: ReplyProgress) throws -> StopReason? {
        guard !text.isEmpty || token.isFinal else { return nil }
        defer { reportFailures() }
        var piece = text
        var stop: StopReason?
        for hook in hooks.active(at: .token) where token.isFinal || !piece.isEmpty {
            var info = token
            info.text = piece
            guard let decision = try hooks.call(hook, at: .token, position: token.index,
                                                given: HookCall.excerpt(piece) + (token.isFinal ? " (final)" : ""), outcome: \.traced,
                                                { try hook.onToken(info, reply: progress) })
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
    mutating func showFinal() throws {
        let count = statistics.generatedTokens
        try show("", token: TokenInfo(id: nil, text: "", index: count, isFinal: true),
                 progress: ReplyProgress(text: rawText, tokenCount: count, elapsed: clock.now - start))
    }

    /// Runs the post-reply hooks and builds the summary of a reply generated under `format`.
    mutating func finish(_ reason: StopReason, format: ReplyFormat?) throws -> ReplySummary {
        defer { reportFailures() }
        statistics.hookDuration = hooks.duration
        var reply = FinishedReply(rawText: rawText, shownText: shownText, storedText: shownText,
                                  stopReason: reason, statistics: statistics, reasoning: trimmedReasoning)
        for hook in hooks.active(at: .reply) {
            let shown = reply.storedText
            _ = try hooks.call(hook, at: .reply, given: "\(reply.shownText.utf8.count) bytes shown, \(reply.stopReason)",
                               outcome: { reply.storedText == shown ? "stored as it was" : "stored \(HookCall.excerpt(reply.storedText))" })
            { try hook.onReply(&reply) }
        }
        statistics.hookDuration = hooks.duration
        statistics.hookCosts = hooks.costs.isEmpty ? nil : hooks.costs
        var summary = ReplySummary(stopReason: reason, statistics: statistics, rawText: rawText,
                                   text: shownText, storedText: reply.storedText, format: format)
        summary.reasoning = reply.reasoning
        summary.logprobs = shownLogprobs
        summary.promptLogprobs = promptLogprobs
        return summary
    }

    func reportFailures() {
        for failure in hooks.takeFailures() { emit(.hookFailure(failure)) }
    }
}
