import TideCore
import TideFormat
import TideLua
import TideModels
import TideProvider
import TideRemote
import TideScript

/// One replay of a prepared script: a chat session driven step by step.
struct Replay {
    let prepared: PreparedScript
    let file: String
    let golden: [RecordedReply?]
    let events: @Sendable (RunEvent) -> Void
    let session: ChatSession
    let checker: ExpectationChecker
    /// Whether recorded replies are generated again rather than checked by teacher forcing.
    let regenerate: Bool
    /// The embedding model of similarity checks.
    let embedder: (any TextEmbedder)?
    /// The script's backend, which judges when no other judge is named.
    let backend: any ChatBackend
    /// Where another judge gets its backend, and how plugins are loaded.
    let judgeBackends: any BackendProvider
    let locator: PluginLocator
    let limits: LuaLimits
    /// The judge, once a check has needed it.
    var judge: Judge?
    /// Whether verdicts recorded for confirmed replies are asked for again.
    let rejudge: Bool
    /// What this run adds to every reply's seed, in a run of several.
    let seedOffset: UInt32?
    var repliesSoFar = 0

    init(runner: ScriptRunner, prepared: PreparedScript, backend: any ChatBackend, model: any ChatModel, file: String,
         golden: [RecordedReply?], cache: (any ReplyCache)?, trace: (any HookTrace)?, events: @escaping @Sendable (RunEvent) -> Void)
    {
        self.prepared = prepared
        self.file = file
        self.golden = golden
        self.events = events
        session = ChatSession(backend: backend, systemPrompt: model.defaultSystemPrompt, parameters: prepared.parameters,
                              hooks: prepared.commandLinePlugins, toolProviders: prepared.toolProviders,
                              hookErrorPolicy: runner.hookErrorPolicy,
                              overflowPolicy: runner.overflow)
        session.recorder = runner.recorder?(file, prepared.setup.lastingModelName)
        session.replyCache = cache
        session.hookTrace = trace
        session.countsInstructions = runner.countsInstructions
        checker = ExpectationChecker(limits: runner.limits, regexBudget: runner.regexBudget, schemas: prepared.schemas)
        regenerate = runner.regenerate
        embedder = runner.embedder
        self.backend = backend
        judgeBackends = runner.judgeBackends ?? runner.backends
        rejudge = runner.rejudge
        locator = runner.locator
        limits = runner.limits
        seedOffset = runner.seedOffset
    }

    mutating func run(_ result: inout ScriptResult, replies: inout [Int: RecordedReply]) async throws {
        let interpreter = prepared.interpreter
        for (index, step) in interpreter.steps.enumerated() {
            switch step {
            case .directive(let directive, _): events(.item(.directive(directive)))
            case .system(let text, _): events(.item(.turn(Turn(.system, text))))
            case .history(let user, let rounds, let assistant, let reasoning, _):
                events(.item(.turn(Turn(.user, user))))
                for item in rounds.flatMap(\.items) { events(.item(item)) }
                if let reasoning { events(.item(.turn(Turn(.reasoning, reasoning)))) }
                events(.item(.turn(Turn(.assistant, assistant))))
            case .reply: break
            }
            guard let step = interpreter.apply(index, to: session) else { continue }
            let reply = try await generate(step)
            replies[step.entry] = RecordedReply(text: Self.transcriptText(reply.text),
                                                record: ReplyRecord(stopReason: reply.stopReason, tokens: reply.statistics.generatedTokens,
                                                                    rounds: reply.rounds.count, verdicts: reply.verdicts),
                                                rounds: reply.rounds, reasoning: reply.reasoning.isEmpty ? nil : reply.reasoning)
            result.replies.append(reply)
            events(.replyFinished(reply))
            events(.transcript(prepared.script.transcript(replies: replies)))
        }
    }

    /// Generates the reply to a user turn and checks it.
    private mutating func generate(_ step: ReplyStep) async throws -> ReplyResult {
        events(.item(.turn(Turn(.user, step.user))))
        for item in step.given.flatMap(\.items) { events(.item(item)) }
        events(.replyStarted)
        // The text shown since the last round of calls (the answer, in the end), and the rounds.
        var text = ""
        var rounds: [ToolRound] = []
        var calls: [ToolCall] = []
        var failures: [String] = []
        var summary: ReplySummary?
        let recorded = step.recorded ?? (repliesSoFar < golden.count ? golden[repliesSoFar] : nil)
        let settings = session.parameters
        if let seedOffset { session.parameters.seed = (settings.seed ?? 0) &+ seedOffset }
        // A check on the reply's likelihood reads its tokens' log-probabilities.
        if settings.logprobs == nil, step.expectations.contains(where: { $0.expectation.check.kind.needs.contains(.logprobs) }) {
            session.parameters.logprobs = 0
        }
        defer { session.parameters = settings }
        let (forcing, skipped) = forcedText(for: step, recorded: recorded)
        do {
            for try await event in ScriptInterpreter.reply(to: step, in: session, forcing: forcing) {
                switch event {
                case .text(let piece):
                    text += piece
                    events(.text(piece))
                // The checks are the answer's: the reasoning is shown, not checked.
                case .reasoning(let piece): events(.reasoning(piece))
                case .hookFailure(let failure): failures.append("\(failure)")
                case .logprobs, .promptLogprobs: break  // the summary has them all
                case .rewound: break  // taken back before it was shown; the statistics count it
                case .toolCallText: break  // the calls come whole
                // A round's calls come first, then their results; its text is what was shown before them.
                case .toolCall(let call):
                    if rounds.last.map({ !$0.results.isEmpty }) ?? true {
                        rounds.append(ToolRound(text: Self.transcriptText(text), calls: [], results: []))
                        text = ""
                    }
                    rounds[rounds.count - 1].calls.append(call.json)
                    calls.append(call)
                case .toolResult(let result):
                    rounds[rounds.count - 1].results.append(result.content)
                case .finished(let finished): summary = finished
                }
            }
        } catch {
            throw ScriptRunError("\(file):\(step.line): \(error)", cause: error)
        }
        guard let summary else { throw ScriptRunError("\(file):\(step.line): the reply ended without a summary") }
        let stopReason = summary.stopReason.description
        let checked = ExpectationChecker.Reply(text: text, tokens: summary.statistics.generatedTokens,
                                               stopReason: stopReason, user: step.user,
                                               timeToFirstToken: summary.statistics.timeToFirstToken,
                                               tokensPerSecond: summary.statistics.tokensPerSecond, recorded: recorded?.text,
                                               toolCalls: calls + summary.toolCalls, toolRounds: rounds.count, logprobs: summary.logprobs,
                                               similarities: await similarities(of: text, for: step, recorded: recorded?.text),
                                               verdicts: await verdicts(on: text, for: step,
                                                                        recorded: Self.confirmed(summary.teacherForcing) ? recorded : nil))
        var reply = ReplyResult(line: step.line, user: step.user, text: text, rounds: rounds, stopReason: stopReason,
                                statistics: summary.statistics,
                                expectations: step.expectations.map { checker.check($0, on: checked) },
                                hookFailures: failures,
                                formatProblem: summary.format?.problem(with: text, stopReason: summary.stopReason),
                                teacherForcing: skipped ?? summary.teacherForcing, parameters: session.parameters)
        reply.reasoning = Self.transcriptText(summary.reasoning)
        reply.pluginNote = pluginNote(on: summary)
        reply.verdicts = checked.verdicts.sorted { $0.key < $1.key }.compactMap { rubric, verdict in
            (try? verdict.get()).map { RecordedVerdict(rubric: rubric, passed: $0.passed, reason: $0.reason) }
        }
        reply.logprobs = summary.logprobs
        reply.recorded = recorded?.text
        if !golden.isEmpty {
            let recorded = repliesSoFar < golden.count ? golden[repliesSoFar]?.text : nil
            let shown = Self.transcriptText(text)
            reply.golden = GoldenComparison(recorded: recorded, matches: recorded == shown,
                                            difference: recorded == shown ? "" : TextDiff.lines(from: recorded ?? "", to: shown))
        }
        repliesSoFar += 1
        return reply
    }

    /// What the plugins did to the reply that a failed check may come from (a stop, an answer
    /// in the model's place, text taken back); `nil` when they did none of it.
    private func pluginNote(on summary: ReplySummary) -> String? {
        var done: [String] = []
        switch summary.stopReason {
        case .hook(let name, let reason):
            done.append("the stop came from \(name) after \(summary.statistics.generatedTokens) tokens"
                + (reason.isEmpty ? "" : " (\(reason))"))
        case .answeredByHook(let name): done.append("\(name) answered in the model's place")
        default: break
        }
        let rewinds = summary.statistics.rewinds
        if rewinds > 0 {
            done.append("plugins took back \(summary.statistics.discardedTokens) tokens in \(rewinds) rewind\(rewinds == 1 ? "" : "s")")
        }
        return done.isEmpty ? nil : done.joined(separator: "; ")
    }

    /// How alike the reply `text` is to what the step's similarity checks compare it with (the
    /// texts they name, and the `recorded` reply), all embedded in one call.
    private func similarities(of text: String, for step: ReplyStep, recorded: String?) async -> ExpectationChecker.Similarities {
        var texts: [String] = []
        var wantsRecorded = false
        for located in step.expectations where located.expectation.check.kind.needs.contains(.embeddings) {
            // A similarity check compares the reply with the text it names, or else with the recording.
            if let target = located.expectation.check.argument.text {
                if !texts.contains(target) { texts.append(target) }
            } else {
                wantsRecorded = true
            }
        }
        if wantsRecorded, recorded == nil { wantsRecorded = false }
        guard !texts.isEmpty || wantsRecorded else { return .init() }
        guard let embedder else {
            return .init(problem: "no embedding model to compare meanings with (tide run --embedding-model names one)")
        }
        do {
            let vectors = try await embedder.embed([text] + texts + (wantsRecorded ? [recorded!] : []))
            var similarities = ExpectationChecker.Similarities()
            for (index, target) in texts.enumerated() { similarities.toText[target] = cosineSimilarity(vectors[0], vectors[index + 1]) }
            if wantsRecorded { similarities.toRecorded = cosineSimilarity(vectors[0], vectors[texts.count + 1]) }
            return similarities
        } catch {
            return .init(problem: "the embedding model failed: \(error)")
        }
    }

    /// The judge's verdicts on the reply `text`, one a rubric of the step's `judge` checks: those
    /// the `recorded` reply holds, when teacher forcing confirmed it (and `--rejudge` is not
    /// given), else asked of the judge.
    private mutating func verdicts(on text: String, for step: ReplyStep, recorded: RecordedReply?)
        async -> [String: Result<Judge.Verdict, JudgeFailure>]
    {
        var verdicts: [String: Result<Judge.Verdict, JudgeFailure>] = [:]
        for located in step.expectations {
            guard located.expectation.check.kind.needs.contains(.judge), let rubric = located.expectation.check.argument.text,
                  verdicts[rubric] == nil else { continue }
            if !rejudge, let kept = recorded?.record.verdicts.first(where: { $0.rubric == rubric }) {
                verdicts[rubric] = .success(Judge.Verdict(passed: kept.passed, reason: kept.reason, recorded: true))
                continue
            }
            do {
                verdicts[rubric] = try await madeJudge().verdict(rubric: rubric, user: step.user, reply: text)
            } catch {
                verdicts[rubric] = .failure(JudgeFailure("it could not be started: \(error)"))
            }
        }
        return verdicts
    }

    /// Whether teacher forcing confirmed the whole recorded reply (so it is the recorded text).
    private static func confirmed(_ forcing: TeacherForcing?) -> Bool {
        if case .confirmed? = forcing { true } else { false }
    }

    /// The judge: the script's `@judge` (or `--judge`) on a backend of its own, else the model
    /// under test on the script's backend; each with its model's own plugins.
    private mutating func madeJudge() async throws -> Judge {
        if let judge { return judge }
        let setup: ModelSetup
        let backend: any ChatBackend
        if let target = prepared.judge {
            setup = try await Judge.setup(naming: target, over: prepared.setup)
            backend = try await judgeBackends.backend(for: setup).backend
        } else {
            setup = prepared.setup
            backend = self.backend
        }
        let recipe = try RecipeSources(setup: setup).resolve()
        let made = Judge(backend: backend, hooks: try PluginMaker(locator: locator, limits: limits).factory(recipe.plugins))
        judge = made
        return made
    }

    /// The text to check a recorded reply against by teacher forcing (with the stop string that
    /// ended it, which the transcript does not show), or why it is generated instead; both `nil`
    /// when nothing was recorded.
    private func forcedText(for step: ReplyStep, recorded: RecordedReply?) -> (RecordedTurn?, TeacherForcing?) {
        guard let recorded else { return (nil, nil) }
        if regenerate { return (nil, .skipped(.asked)) }
        if step.expectations.contains(where: { $0.expectation.check.kind.needs.contains(.speed) }) { return (nil, .skipped(.speedChecks)) }
        let stop = session.parameters.stop.first { StopReason.stopString($0).description == recorded.record.stopReason }
        var turn = recorded.turn
        turn.answer += stop ?? ""
        return (turn, nil)
    }

    /// A reply as a transcript can hold it: scripts are line-based, so carriage returns become
    /// line feeds.
    static func transcriptText(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }
}
