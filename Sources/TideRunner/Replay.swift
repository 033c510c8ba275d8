import TideCore
import TideFormat
import TideProvider
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
    /// What this run adds to every reply's seed, in a run of several.
    let seedOffset: UInt32?
    var repliesSoFar = 0

    init(runner: ScriptRunner, prepared: PreparedScript, backend: any ChatBackend, model: any ChatModel, file: String,
         golden: [RecordedReply?], events: @escaping @Sendable (RunEvent) -> Void)
    {
        self.prepared = prepared
        self.file = file
        self.golden = golden
        self.events = events
        session = ChatSession(backend: backend, systemPrompt: model.defaultSystemPrompt, parameters: prepared.parameters,
                              hooks: prepared.commandLinePlugins, hookErrorPolicy: runner.hookErrorPolicy,
                              overflowPolicy: runner.overflow)
        session.recorder = runner.recorder?(file, prepared.setup.lastingModelName)
        checker = ExpectationChecker(limits: runner.limits, regexTimeLimit: runner.regexTimeLimit, schemas: prepared.schemas)
        regenerate = runner.regenerate
        seedOffset = runner.seedOffset
    }

    mutating func run(_ result: inout ScriptResult, replies: inout [Int: RecordedReply]) async throws {
        let interpreter = prepared.interpreter
        for (index, step) in interpreter.steps.enumerated() {
            switch step {
            case .directive(let directive, _): events(.item(.directive(directive)))
            case .system(let text, _): events(.item(.turn(Turn(.system, text))))
            case .history(let user, let assistant, _):
                events(.item(.turn(Turn(.user, user))))
                events(.item(.turn(Turn(.assistant, assistant))))
            case .reply: break
            }
            guard let step = interpreter.apply(index, to: session) else { continue }
            let reply = try await generate(step)
            replies[step.entry] = RecordedReply(text: Self.transcriptText(reply.text),
                                                record: ReplyRecord(stopReason: reply.stopReason,
                                                                    tokens: reply.statistics.generatedTokens))
            result.replies.append(reply)
            events(.replyFinished(reply))
            events(.transcript(prepared.script.transcript(replies: replies)))
        }
    }

    /// Generates the reply to a user turn and checks it.
    private mutating func generate(_ step: ReplyStep) async throws -> ReplyResult {
        events(.item(.turn(Turn(.user, step.user))))
        events(.replyStarted)
        var text = ""
        var failures: [String] = []
        var summary: ReplySummary?
        let recorded = step.recorded ?? (repliesSoFar < golden.count ? golden[repliesSoFar] : nil)
        let settings = session.parameters
        if let seedOffset { session.parameters.seed = (settings.seed ?? 0) &+ seedOffset }
        defer { session.parameters = settings }
        let (forcing, skipped) = forcedText(for: step, recorded: recorded)
        do {
            for try await event in session.reply(to: step.user, forcing: forcing) {
                switch event {
                case .text(let piece):
                    text += piece
                    events(.text(piece))
                case .hookFailure(let failure): failures.append("\(failure)")
                // Scripts hold no tool turns yet: a turn's calls run, and its answer is checked.
                case .toolCall, .toolResult: break
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
                                               tokensPerSecond: summary.statistics.tokensPerSecond, recorded: recorded?.text)
        var reply = ReplyResult(line: step.line, user: step.user, text: text, stopReason: stopReason,
                                statistics: summary.statistics,
                                expectations: step.expectations.map { checker.check($0, on: checked) },
                                hookFailures: failures,
                                formatProblem: summary.format?.problem(with: text, stopReason: summary.stopReason),
                                teacherForcing: skipped ?? summary.teacherForcing, parameters: session.parameters)
        if !golden.isEmpty {
            let recorded = repliesSoFar < golden.count ? golden[repliesSoFar]?.text : nil
            let shown = Self.transcriptText(text)
            reply.golden = GoldenComparison(recorded: recorded, matches: recorded == shown,
                                            difference: recorded == shown ? "" : TextDiff.lines(from: recorded ?? "", to: shown))
        }
        repliesSoFar += 1
        return reply
    }

    /// The text to check a recorded reply against by teacher forcing (with the stop string that
    /// ended it, which the transcript does not show), or why it is generated instead; both `nil`
    /// when nothing was recorded.
    private func forcedText(for step: ReplyStep, recorded: RecordedReply?) -> (String?, TeacherForcing?) {
        guard let recorded else { return (nil, nil) }
        if regenerate { return (nil, .skipped(.asked)) }
        if step.expectations.contains(where: \.expectation.check.measuresSpeed) { return (nil, .skipped(.speedChecks)) }
        let stop = session.parameters.stop.first { StopReason.stopString($0).description == recorded.record.stopReason }
        return (recorded.text + (stop ?? ""), nil)
    }

    /// A reply as a transcript can hold it: scripts are line-based, so carriage returns become
    /// line feeds.
    static func transcriptText(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }
}
