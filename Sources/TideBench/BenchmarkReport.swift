import Foundation

/// Everything `tide bench` measured, with the budgets of the design.
public struct BenchmarkReport: Sendable, CustomStringConvertible {
    /// The model's name.
    public var model: String
    /// Rounds per comparison.
    public var rounds: Int
    var decode: DecodeSpeedBenchmark.Result?
    var draft: [DraftBenchmark.Figure] = []
    var serveDraft: [ServeDraftBenchmark.Figure] = []
    var quantization: QuantizationBenchmark.Result?
    var logitsHook: [LogitsHookBenchmark.Result] = []
    var plugins: [PluginCostBenchmark.Row] = []
    var cacheReuse: CacheReuseBenchmark.Result?
    var kvCache: KVCacheBenchmark.Result?
    var serveModels: ServeModelsBenchmark.Result?
    var chatTurns: ChatTurnsBenchmark.Result?
    var contextShift: ContextShiftBenchmark.Result?
    var parallelReplay: ParallelReplayBenchmark.Result?
    var teacherForcing: TeacherForcingBenchmark.Result?
    var scoreDrift: ScoreDriftBenchmark.Result?
    var rewind: RewindBenchmark.Result?
    var format: FormatBenchmark.Result?
    var formatBudget: FormatBudgetBenchmark.Result?
    var tools: ToolsBenchmark.Result?
    var log: LogBenchmark.Result?
    var contention: ContentionBenchmark.Result?
    var process: ProcessBenchmark.Result?

    /// Whether every measured figure is within its budget.
    public var withinBudgets: Bool { checks.allSatisfy(\.passed) }

    private var checks: [(line: String, passed: Bool)] {
        var lines: [(String, Bool)] = []
        if let decode {
            lines.append(("decode: bare loop \(fixed(decode.bareTokensPerSecond)) tok/s, engine "
                + "\(fixed(decode.engineTokensPerSecond)) tok/s (medians), \(decode.tokensPerRound) tokens per round → paired "
                + "ratio \(fixed(decode.ratio, 3)) (budget ≥ 0.98)", decode.ratio >= 0.98))
            lines.append(("decode: the engine choosing each greedy token in llama.cpp's graph (\(decode.chosenOnBackend) tokens in all) vs "
                + "copying the scores: \(fixed(decode.inGraphTokensPerSecond)) vs \(fixed(decode.copiedTokensPerSecond)) tok/s → paired "
                + "ratio \(fixed(decode.backendRatio, 3)) "
                + (decode.choosesInGraphByDefault ? "(goal: not lower; ≥ 0.98, the machine's noise)"
                    : "(the scores are on the CPU here, so by default the engine reads them in place: no goal)"),
                decode.backendRatio >= 0.98 || !decode.choosesInGraphByDefault))
            lines.append(("decode under the default model's sampling (temperature 0.2, repeat penalty 1.1, seeded), choosing among the "
                + "few best scores llama.cpp's graph keeps (\(decode.chosenAmongCandidates) tokens in all) vs copying the scores: "
                + "\(fixed(decode.candidatesTokensPerSecond)) vs \(fixed(decode.candidatesCopiedTokensPerSecond)) tok/s → paired ratio "
                + "\(fixed(decode.candidatesRatio, 3)), replies \(decode.candidatesRepliesAgree ? "identical" : "DIFFERENT") "
                + "(goal: identical, not lower; ≥ 0.98, the machine's noise)", decode.candidatesRatio >= 0.98 && decode.candidatesRepliesAgree))
            lines.append(("decode with each token's log-probability and the 5 likeliest (logprobs 5) vs without: "
                + "\(fixed(decode.logprobsTokensPerSecond)) vs \(fixed(decode.logprobsBaseTokensPerSecond)) tok/s, back to back → paired ratio "
                + "\(fixed(decode.logprobsRatio, 3)) (goal ≥ 0.95; against the engine copying the scores, as any reply that reads them: "
                + "\(fixed(decode.logprobsTokensPerSecond / max(decode.copiedTokensPerSecond, 1e-9), 3)))", decode.logprobsRatio >= 0.95))
            if let ratio = decode.pluginRatio, let rate = decode.pluginTokensPerSecond,
               let cost = decode.microsecondsPerHookCall
            {
                lines.append(("decode with plugins \(decode.pluginNames.joined(separator: ", ")): \(fixed(rate)) tok/s → "
                    + "paired ratio \(fixed(ratio, 3)) (budget ≥ 0.95); one hook call \(fixed(cost)) µs", ratio >= 0.95))
            }
        }
        for figure in draft {
            let budget = figure.copies ? 1.5 : 0.98
            // Where batches are not exact (drafting `always`), a reply may part at a near-tie.
            let replies = figure.mode == .always ? (figure.differs ? "differing at a near-tie" : "identical") + " (--draft always: batches not exact here)"
                : figure.differs ? "DIFFERING" : "identical"
            lines.append(("drafting, \(figure.name) (\(figure.generatedTokens) tokens): \(fixed(figure.plainTokensPerSecond)) → "
                + "\(fixed(figure.draftedTokensPerSecond)) tok/s, paired ratio \(fixed(figure.ratio, 3)) (budget ≥ \(budget)); "
                + "\(figure.drafting.accepted) of \(figure.drafting.drafted) drafted tokens accepted "
                + "(\(fixed(figure.drafting.acceptanceRate * 100)) %), \(fixed(figure.drafting.tokensPerVerification, 2)) tokens per "
                + "check; replies \(replies)", figure.ratio >= budget && (!figure.differs || figure.mode == .always)))
        }
        for figure in serveDraft {
            let replies = "replies " + (figure.differs ? "DIFFERING" : "identical")
            if let commandLine = figure.commandLineRatio, let share = figure.ofCommandLine {
                lines.append(("drafting through tide serve (4 sequences), 1 client repeating a text held by a grammar: "
                    + "\(fixed(figure.plainTokensPerSecond)) → \(fixed(figure.draftedTokensPerSecond)) tok/s decoding, paired ratio "
                    + "\(fixed(figure.ratio, 3)) (budget ≥ 1.3); the command line on the same reply \(fixed(commandLine, 3)) → "
                    + "\(fixed(share, 3)) of it (budget ≥ 0.95; drafting, the command line decodes at "
                    + "\(fixed(figure.commandLineTokensPerSecond ?? 0)) tok/s); \(replies)", figure.ratio >= 1.3 && share >= 0.95 && !figure.differs))
            } else {
                lines.append(("drafting through tide serve (4 sequences), \(figure.clients) clients repeating a text held by a grammar: "
                    + "\(fixed(figure.plainTokensPerSecond)) → \(fixed(figure.draftedTokensPerSecond)) tok/s in all, paired ratio "
                    + "\(fixed(figure.ratio, 3)) (budget ≥ 0.98: never slower); \(replies)", figure.ratio >= 0.98 && !figure.differs))
            }
        }
        if let decode = quantization?.engineDecode {
            lines.append(("engine decode, default model vs the file it is made from (no drafting): \(fixed(decode.defaultRate)) vs "
                + "\(fixed(decode.originalRate)) tok/s → paired ratio \(fixed(decode.ratio, 3)) (goal: not lower; ≥ 0.98, the machine's noise)", decode.ratio >= 0.98))
        }
        for row in quantization?.rows ?? [] {
            lines.append(("\(row.name) (\(row.format), \(fixed(row.fileMiB)) MiB; \(row.settings)): prompt "
                + "\(fixed(row.promptTokensPerSecond)) tok/s, decode \(fixed(row.decodeTokensPerSecond)) tok/s → "
                + "\(fixed(row.promptOverDecode, 2))× (goal ≥ 5); 8 sequences in one step \(fixed(row.batchRatio, 3)) of 8 single "
                + "steps (goal ≤ 0.35); batches \(row.exact ? "exact" : "NOT exact")",
                row.promptOverDecode >= 5 && row.batchRatio <= 0.35))
        }
        for hook in logitsHook {
            lines.append(("one on_logits call with view:top(40) on \(hook.model) (\(hook.vocabularySize) tokens): "
                + "\(fixed(hook.microsecondsPerCall)) µs, \(fixed(hook.shareOfTokenTime * 100)) % of the time per token", true))
        }
        for row in plugins {
            lines.append((row.hooks.isEmpty ? "plugin \(row.plugin): no hook called in a reply without tool calls"
                : "plugin \(row.plugin) (\(row.hooks.joined(separator: ", "))): per token \(fixed(row.callsPerToken, 2)) calls, "
                    + "\(fixed(row.instructionsPerToken)) instructions, \(fixed(row.microsecondsPerToken, 2)) µs; "
                    + "\(fixed(row.share * 100, 2)) % of the reply's time", true))
        }
        if let budget = formatBudget {
            lines.append(("\(budget.measured) of \(budget.schemas) schema fixtures with max-tokens cut to 60% of their reply: "
                + "valid without budget steering \(budget.validWithout), with it \(budget.validWith) (\(budget.steeredReplies) "
                + "replies steered, \(budget.steeredTokens) tokens set aside)"
                + (budget.failures.isEmpty ? "" : "; still invalid: " + budget.failures.joined(separator: "; "))
                + " (budget: every one valid that the budget can hold)", budget.validWith + budget.impossible == budget.measured))
        }
        if let format {
            lines.append(("a greedy reply under a JSON schema (\(format.schemaTokens) tokens, \(format.valid ? "valid" : "NOT VALID")): "
                + "paired ratio \(fixed(format.schemaRatio, 3)) to free text of \(format.sameLength ? "the same" : "A DIFFERENT") length "
                + "(budget ≥ 0.85), "
                + "\(fixed(format.schemaMilliseconds, 2)) ms per token for the grammar; constraining every candidate "
                + "instead: \(fixed(format.everyTokenRatio, 3)), \(fixed(format.everyTokenMilliseconds, 2)) ms per token; "
                + "free text \(fixed(format.plainTokensPerSecond)) tok/s",
                format.valid && format.sameLength && format.schemaRatio >= 0.85))
        }
        if let tools {
            lines.append(("a greedy reply with a tool offered but not called (\(tools.offeredTokens) tokens\(tools.called ? ", BUT IT CALLED" : "")): "
                + "paired ratio \(fixed(tools.offeredRatio, 3)) to the reply to the same prompt without tools (\(tools.plainTokens) tokens; "
                + "budget ≥ 0.97), \(fixed(tools.shorterPromptRatio, 3)) to a reply without the tools' block in the prompt; "
                + "a call: reading two from a reply \(fixed(tools.parseMilliseconds, 3)) ms, running the Lua tool "
                + "\(fixed(tools.toolMilliseconds, 2)) ms, resuming (the result's prompt, to the next scores) "
                + "\(fixed(tools.resumeMilliseconds, 1)) ms"
                + (tools.oneCallEachRound ? "" : "; NOT ONE CALL EACH ROUND") + "; without tools \(fixed(tools.plainTokensPerSecond)) tok/s",
                !tools.called && tools.oneCallEachRound && tools.offeredRatio >= 0.97))
        }
        if let rewind {
            lines.append(("ban-phrases on a reply without the phrases (\(rewind.quietRewinds) rewinds): built-in list → paired ratio "
                + "\(fixed(rewind.slopListRatio, 3)) (budget ≥ 0.95), 1,000 phrases → \(fixed(rewind.thousandPhrasesRatio, 3)) "
                + "(budget ≥ 0.90); no plugin \(fixed(rewind.plainTokensPerSecond)) tok/s",
                          rewind.quietRewinds == 0 && rewind.slopListRatio >= 0.95 && rewind.thousandPhrasesRatio >= 0.90))
            lines.append(("a ban that fires: \(rewind.rewinds) rewinds taking back \(rewind.discardedTokens) tokens, "
                + "\(fixed(rewind.rewindsPerSecond)) rewinds/s; each costs \(fixed(rewind.millisecondsPerRewind, 2)) ms beyond "
                + "decoding the tokens again (budget ≤ 2 ms)", rewind.rewinds > 0 && rewind.millisecondsPerRewind <= 2))
        }
        if let cacheReuse {
            lines.append(("follow-up time to first token: \(milliseconds(cacheReuse.reusedSeconds)) with "
                + "\(cacheReuse.reusedTokens) of \(cacheReuse.historyTokens) tokens cached vs "
                + "\(milliseconds(cacheReuse.fullSeconds)) from scratch → ratio \(fixed(cacheReuse.ratio, 3)) "
                + "(budget ≤ 0.2)", cacheReuse.ratio <= 0.2))
        }
        if let serveModels {
            lines.append(("serve, two models one at a time: resident memory \(mebibytes(serveModels.residentAfterFirst)) after the first "
                + "load/unload cycle, \(mebibytes(serveModels.residentAfterLast)) after \(serveModels.cycles) (streams cut mid-reply): "
                + "\(fixed(serveModels.growthPerCycle / 1024, 1)) KiB per cycle (budget: under 8 MiB in all); a request that loads its model "
                + "\(milliseconds(serveModels.switchSeconds)), one that finds it loaded \(milliseconds(serveModels.loadedSeconds))",
                          serveModels.residentAfterLast - serveModels.residentAfterFirst < 8 << 20))
        }
        if let kvCache {
            for row in kvCache.rows {
                lines.append(("KV cache \(row.type.rawValue): \(mebibytes(row.bytesPerSequence)) per sequence of \(kvCache.contextSize) tokens "
                    + "(estimated \(mebibytes(row.estimatedBytesPerSequence))), \(row.sequencesInBudget) sequences of 4096 tokens in 1 GiB; "
                    + "\(kvCache.sequences) sequences decoding after \(kvCache.historyTokens) prompt tokens: \(fixed(row.tokensPerSecond)) tok/s, "
                    + "paired ratio to f16 \(fixed(row.ratioToF16, 3)); teacher forcing \(row.exactBatches ? "exact" : "within the tolerance")"
                    + (row.type == .f16 ? "" : " (figures, no budget)"), true))
            }
        }
        if let chat = chatTurns, let second = chat.turns.first(where: { $0.number == 2 }),
           let tenth = chat.turns.first(where: { $0.number == 10 }) {
            let turns = chat.turns.map { turn in
                "turn \(turn.number) \(milliseconds(turn.seconds)) (\(turn.evaluatedTokens) new of \(turn.promptTokens) tokens; "
                    + "llama.cpp alone \(milliseconds(turn.bareSeconds)), ×\(fixed(turn.overBare, 2)))"
            }
            lines.append(("chat time to first token: " + turns.joined(separator: ", ") + " → turn 2 / turn 1 "
                + "\(fixed(chat.ratio(2), 3)), turn 10 / turn 1 \(fixed(chat.ratio(10), 3)) (budget: turn 10 costs no more "
                + "over llama.cpp's own cost of its new tokens than turn 2 does, within 15 %)",
                tenth.overBare <= 1.15 * second.overBare))
        }
        if let shift = contextShift {
            lines.append(("a conversation of \(shift.conversationTokens) tokens on a \(ContextShiftBenchmark.contextSize)-token context "
                + "(first outgrown at turn \(shift.firstOverflowTurn + 1)), --context-overflow shift: a turn just after "
                + "\(milliseconds(shift.earlySeconds)), one of the last \(milliseconds(shift.lateSeconds)) → ratio \(fixed(shift.flatness, 3)) "
                + "(budget ≤ 1.25: flat); a last turn evaluates \(shift.shiftLateEvaluated) prompt tokens (drop-oldest: "
                + "\(shift.dropLateEvaluated), \(milliseconds(shift.lateDropSeconds)) → shift / drop-oldest \(fixed(shift.overDropping, 3)))",
                shift.flatness <= 1.25))
        }
        if let replay = parallelReplay {
            lines.append(("eight 3-turn scripts (\(replay.generatedTokens) tokens): one after another "
                + "\(fixed(replay.sequentialSeconds)) s, --parallel 8 \(fixed(replay.parallelSeconds)) s → ratio "
                + "\(fixed(replay.ratio, 3)) (budget ≤ 0.5, the same replies); "
                + (replay.differingReplies == 0 ? "replies identical; "
                    : "replies DIFFERING: \(replay.differingReplies) of 24 (this build's batches are not bit-exact); ")
                + "llama.cpp alone: 8 sequences in one step take \(fixed(replay.ceiling, 3)) of 8 single steps",
                          replay.ratio <= 0.5 && replay.differingReplies == 0))
        }
        if let forcing = teacherForcing {
            lines.append(("checking \(forcing.scripts) recorded transcripts (\(forcing.replies) replies, \(forcing.recordedTokens) tokens): "
                + "--regenerate \(fixed(forcing.regenerateSeconds)) s, teacher forcing \(fixed(forcing.forcedSeconds)) s → ratio "
                + "\(fixed(forcing.ratio, 3)) (budget ≤ 0.25); \(forcing.confirmedReplies) replies confirmed, "
                + "\(forcing.differingReplies) differing; llama.cpp alone: prompt \(fixed(forcing.promptRate)) tok/s, "
                + "a 63-token chunk \(fixed(forcing.chunkRate)) tok/s, decoding \(fixed(forcing.decodeRate)) tok/s → "
                + "a chunk evaluates \(fixed(forcing.chunkRate / forcing.decodeRate, 2))× as fast as decoding",
                          forcing.ratio <= 0.25 && forcing.differingReplies == 0))
        }
        if let drift = scoreDrift {
            lines.append(contentsOf: scoreDriftLines(drift))
        }
        if let log {
            lines.append(("decode with the conversation log: \(fixed(log.loggedTokensPerSecond)) tok/s vs \(fixed(log.plainTokensPerSecond)) "
                + "tok/s without → paired ratio \(fixed(log.ratio, 3)) (budget ≥ 0.99); control, unlogged against unlogged: "
                + "\(fixed(log.controlRatio, 3))", log.ratio >= 0.99))
            let queries = log.queries.map { "\($0.text) \(milliseconds($0.seconds)) (\($0.hits) hit\($0.hits == 1 ? "" : "s"))" }
            lines.append(("tide logs search over \(log.filledReplies.formatted()) logged replies (\(mebibytes(log.databaseBytes)), written at "
                + "\(fixed(log.repliesPerSecond)) replies/s): " + queries.joined(separator: ", ") + " → slowest "
                + "\(milliseconds(log.slowestSeconds)); the whole command `tide logs search lighthouse`, process start included, "
                + "\(milliseconds(log.commandSeconds)) (budget ≤ 50 ms for both)", log.slowestSeconds <= 0.05 && log.commandSeconds <= 0.05))
        }
        for line in contention?.lines ?? [] {
            let each = line.eachSeconds.map { String(format: "%.2f s", $0) }.joined(separator: ", ")
            lines.append(("\(line.program), \(line.scenario.name): \(each) against \(String(format: "%.2f s", line.aloneSeconds)) alone → "
                + "\(fixed(line.ratio, 2))× " + (line.program == "tide" ? "(budget ≤ \(fixed(line.scenario.budget, 1))×)" : "(the peer)"),
                line.program != "tide" || line.ratio <= line.scenario.budget))
        }
        if let process {
            lines.append(("peak RSS of `tide generate`: \(mebibytes(process.peakBytes)) (budget "
                + "\(mebibytes(process.budgetBytes)) = model file \(mebibytes(process.modelFileBytes)) + KV cache "
                + "\(mebibytes(process.kvCacheBytes)) + 64 MiB)", process.peakBytes <= process.budgetBytes))
            lines.append(("cold start of `tide generate` to first token: \(milliseconds(process.coldStartSeconds))",
                          true))
        }
        return lines
    }

    public var description: String {
        (["model: \(model), \(rounds) alternating rounds per comparison"]
            + checks.map { ($0.passed ? "PASS  " : "FAIL  ") + $0.line }).joined(separator: "\n")
    }

    private func fixed(_ value: Double, _ digits: Int = 1) -> String {
        value.formatted(.number.precision(.fractionLength(digits)))
    }
    private func milliseconds(_ seconds: Double) -> String { fixed(seconds * 1000) + " ms" }
    private func mebibytes(_ bytes: Int64) -> String { fixed(Double(bytes) / 1_048_576) + " MiB" }
}
