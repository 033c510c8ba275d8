import Synchronization

/// A conversation with a model: its history, parameters and hooks.
///
/// Each call to ``reply(to:)`` streams one reply. The history is updated when the reply ends,
/// however it ends: a cancelled or failed reply is kept as an interrupted assistant message, so
/// the session stays usable and the backend's cache stays consistent with the history.
///
/// ```swift
/// let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.")
/// for try await event in session.reply(to: "What is the capital of France?") {
///     if case .text(let text) = event { print(text, terminator: "") }
/// }
/// ```
public final class ChatSession: Sendable {
    /// The model this session talks to.
    public let backend: any ChatBackend
    private let state: Mutex<State>

    private struct State {
        var history: [ChatMessage]
        var parameters: GenerationParameters
        var hooks: [any ChatHook]
        var toolProviders: [any ToolProvider]
        var disabledHooks: Set<ObjectIdentifier> = []
        var hookErrorPolicy: HookErrorPolicy
        var overflowPolicy: ContextOverflowPolicy
        var busy = false
        var running: Task<Void, Never>?
        var recorder: (any ExchangeRecorder)?
        var replyCache: (any ReplyCache)?
        var toolApproval: ToolApproval?
        var hookTrace: (any HookTrace)?
        var countsInstructions = false
    }

    /// Creates a session.
    /// - Parameters:
    ///   - systemPrompt: the first message, if not `nil` or empty.
    ///   - hooks: run in this order at every pipeline point; those that are ``ToolProvider``s
    ///     (plugins with tools) offer their tools too.
    ///   - toolProviders: tools from elsewhere (an MCP server's), after the hooks'.
    public init(
        backend: any ChatBackend,
        systemPrompt: String? = nil,
        parameters: GenerationParameters = GenerationParameters(),
        hooks: [any ChatHook] = [],
        toolProviders: [any ToolProvider] = [],
        hookErrorPolicy: HookErrorPolicy = .disableHook,
        overflowPolicy: ContextOverflowPolicy = .fail
    ) {
        self.backend = backend
        for hook in hooks { hook.attach(to: backend) }
        let history = [ChatMessage]().replacingSystemPrompt(systemPrompt ?? "")
        state = Mutex(State(history: history, parameters: parameters, hooks: hooks, toolProviders: toolProviders,
                            hookErrorPolicy: hookErrorPolicy, overflowPolicy: overflowPolicy))
    }

    /// The conversation so far.
    public var history: [ChatMessage] {
        get { state.withLock { $0.history } }
        set { state.withLock { $0.history = newValue } }
    }

    /// The parameters of the next reply.
    public var parameters: GenerationParameters {
        get { state.withLock { $0.parameters } }
        set { state.withLock { $0.parameters = newValue } }
    }

    /// The hooks, in order. A hook disabled after a failure stays disabled while it is in the
    /// list; a new instance (a reloaded plugin) starts enabled.
    public var hooks: [any ChatHook] {
        get { state.withLock { $0.hooks } }
        set {
            for hook in newValue { hook.attach(to: backend) }
            state.withLock { state in
                state.hooks = newValue
                state.disabledHooks.formIntersection(newValue.map(ObjectIdentifier.init))
            }
        }
    }

    /// The tools from elsewhere than the hooks (an MCP server's), offered after theirs.
    public var toolProviders: [any ToolProvider] {
        get { state.withLock { $0.toolProviders } }
        set { state.withLock { $0.toolProviders = newValue } }
    }

    /// Every tool provider, in order: the hooks that are providers, then ``toolProviders``.
    public var allToolProviders: [any ToolProvider] {
        state.withLock { Self.providers(of: $0) }
    }

    private static func providers(of state: State) -> [any ToolProvider] {
        state.hooks.compactMap { $0 as? any ToolProvider } + state.toolProviders
    }

    /// What keeps a record of each reply (the conversation log); `nil` for none.
    public var recorder: (any ExchangeRecorder)? {
        get { state.withLock { $0.recorder } }
        set { state.withLock { $0.recorder = newValue } }
    }

    /// Where determined replies are kept and given again (``ReplyCache``); `nil` for none.
    public var replyCache: (any ReplyCache)? {
        get { state.withLock { $0.replyCache } }
        set { state.withLock { $0.replyCache = newValue } }
    }

    /// What is asked before each call a hook would run (`--approve-tools`); `nil` runs every call.
    /// A call it declines is not run: the model is told so, as the call's result.
    public var toolApproval: ToolApproval? {
        get { state.withLock { $0.toolApproval } }
        set { state.withLock { $0.toolApproval = newValue } }
    }

    /// Where each call of the hooks is recorded as it ends (`--trace-hooks`); `nil` for no trace.
    public var hookTrace: (any HookTrace)? {
        get { state.withLock { $0.hookTrace } }
        set { state.withLock { $0.hookTrace = newValue } }
    }

    /// Whether the hooks count the instructions of their calls exactly, for the costs of
    /// ``GenerationStatistics/hookCosts`` (`--stats`, `tide run --json`); a trace has them count
    /// anyway. Counting may make plugins slower, so a server does not unless it traces.
    public var countsInstructions: Bool {
        get { state.withLock { $0.countsInstructions } }
        set { state.withLock { $0.countsInstructions = newValue } }
    }

    /// The names of hooks disabled after a failure.
    public var disabledHookNames: [String] {
        state.withLock { state in
            state.hooks.filter { state.disabledHooks.contains(ObjectIdentifier($0)) }.map(\.name)
        }
    }

    /// Streams the reply to `userMessage`: ``ReplyEvent/text(_:)`` events, then one
    /// ``ReplyEvent/finished(_:)``. Ending the iteration early cancels the reply.
    ///
    /// The stream throws ``ChatSessionError/busy`` if another reply is still running,
    /// ``InvalidParameterError`` or ``ContextOverflowError`` before any text, and the backend's
    /// or a hook's error (under ``HookErrorPolicy/failReply``) if decoding fails.
    ///
    /// `recorded`, a reply recorded earlier for this message (a transcript's), lets the backend
    /// check it by teacher forcing instead of generating it (``TeacherForcing``): the reply is the
    /// same either way, and its summary says how far the recording held.
    public func reply(to userMessage: String, forcing recorded: String? = nil) -> AsyncThrowingStream<ReplyEvent, any Error> {
        start(ChatMessage(.user, userMessage), forcing: recorded.map { RecordedTurn(answer: $0) })
    }

    /// Like ``reply(to:forcing:)``, for a turn recorded with its rounds of tool calls: each round
    /// is checked by teacher forcing in turn (the calls as the model wrote them), then the answer.
    public func reply(to userMessage: String, forcing recorded: RecordedTurn?) -> AsyncThrowingStream<ReplyEvent, any Error> {
        start(ChatMessage(.user, userMessage), forcing: recorded)
    }

    /// Streams the reply to the tool results that end the history (a client's, which ran the
    /// calls the last reply ended with: ``ReplySummary/toolCalls``; a script's written rounds),
    /// as ``reply(to:forcing:)`` streams one to a message.
    public func replyToToolResults(forcing recorded: RecordedTurn? = nil) -> AsyncThrowingStream<ReplyEvent, any Error> {
        start(nil, forcing: recorded)
    }

    /// The turn that answers `question`, or the history's last message when it is `nil`.
    private func start(_ question: ChatMessage?, forcing recorded: RecordedTurn?) -> AsyncThrowingStream<ReplyEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ReplyEvent.self)
        let snapshot: State? = state.withLock { state in
            guard !state.busy else { return nil }
            state.busy = true
            return state
        }
        guard let snapshot else {
            continuation.finish(throwing: ChatSessionError.busy)
            return stream
        }
        guard question != nil || snapshot.history.last?.role == .tool else {
            state.withLock { $0.busy = false }
            continuation.finish(throwing: ChatSessionError.noToolResults)
            return stream
        }
        let task = Task(executorPreference: backend.taskExecutor) { [self, backend] in
            let chain = HookChain(hooks: snapshot.hooks, disabled: snapshot.disabledHooks,
                                  policy: snapshot.hookErrorPolicy, trace: snapshot.hookTrace,
                                  countingInstructions: snapshot.countsInstructions)
            var turn = question.map { [$0] } ?? []
            var partial = ""
            do {
                // Tools the parameters bring (a server's client's) take the place of the hooks'.
                let toolBox = snapshot.parameters.tools.isEmpty
                    ? try ToolBox(providers: Self.providers(of: snapshot), disabled: snapshot.disabledHooks, names: snapshot.parameters.toolNames)
                    : ToolBox()
                var parameters = snapshot.parameters
                parameters.tools = toolBox.definitions + parameters.tools
                // Results the caller sent (a server's client's) pass the policy as Tide's own do.
                let history = question == nil
                    ? try toolBox.reviewingSentResults(of: snapshot.history, limit: parameters.maxToolResult, policy: chain)
                    : snapshot.history
                for failure in chain.takeFailures() { continuation.yield(.hookFailure(failure)) }
                let summary = try await rounds(turn: &turn, partial: &partial, history: history, parameters: parameters,
                                               toolBox: toolBox, approval: snapshot.toolApproval, cache: snapshot.replyCache, chain: chain,
                                               overflowPolicy: snapshot.overflowPolicy,
                                               forcing: recorded) { continuation.yield($0) }
                let answer = ChatMessage(.assistant, summary.storedText, interrupted: summary.stopReason == .cancelled,
                                         toolCalls: toolBox.runsAll(summary.toolCalls) ? [] : summary.toolCalls,
                                         reasoning: summary.reasoning.isEmpty ? nil : summary.reasoning)
                commit(turn + [answer], disabled: chain.disabled)
                // Recorded before the stream ends, so that whoever waits for the stream can wait for the record too.
                record(snapshot, question: question, rounds: Array(turn.dropFirst(question == nil ? 0 : 1)), answer: answer,
                       summary: summary)
                continuation.yield(.finished(summary))
                continuation.finish()
            } catch {
                let answer = ChatMessage(.assistant, partial, interrupted: true)
                commit(partial.isEmpty && turn.count <= 1 ? [] : turn + [answer], disabled: chain.disabled)
                if !partial.isEmpty {
                    record(snapshot, question: question, rounds: Array(turn.dropFirst(question == nil ? 0 : 1)), answer: answer,
                           summary: nil)
                }
                continuation.finish(throwing: error)
            }
        }
        state.withLock { if $0.busy { $0.running = task } }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The turn's replies: while the model calls tools that the hooks run (up to
    /// ``GenerationParameters/maxToolRounds`` rounds, after which it is not offered them), each
    /// call's event and result, the calls and results added to `turn`, and the model asked again;
    /// then its answer's summary. Calls of tools no hook runs (a server's client's) end the turn.
    private func rounds(turn: inout [ChatMessage], partial: inout String, history: [ChatMessage], parameters: GenerationParameters,
                        toolBox: ToolBox, approval: ToolApproval?, cache: (any ReplyCache)?, chain: HookChain,
                        overflowPolicy: ContextOverflowPolicy,
                        forcing recorded: RecordedTurn?, emit: @escaping (ReplyEvent) -> Void) async throws -> ReplySummary
    {
        var results: [ToolResult] = []
        var generated = 0
        var reasoned = 0
        var decoding = Duration.zero
        var firstToken: Duration?
        var forcing: TeacherForcing?
        var determined: Bool?
        var round = 0
        while true {
            var loop = ReplyLoop(backend: backend, hooks: chain, overflowPolicy: overflowPolicy, cache: cache, emit: emit)
            let roundParameters = Self.parameters(ofRound: round, parameters)
            var summary: ReplySummary
            do {
                summary = try await loop.run(messages: history + turn, parameters: roundParameters,
                                             forcing: recorded?.text(ofRound: round, reader: backend.toolCallReader,
                                                                     markers: backend.reasoningMarkers))
            } catch {
                partial = loop.shownText
                throw error
            }
            forcing = TeacherForcing.turn(forcing, then: summary.teacherForcing, after: generated)
            generated += summary.statistics.generatedTokens
            reasoned += summary.statistics.reasoningTokens
            decoding += summary.statistics.decodeDuration
            firstToken = firstToken ?? summary.statistics.timeToFirstToken
            determined = summary.statistics.determined.map { (determined ?? true) && $0 }
            let calls = summary.toolCalls.map { call in
                var named = call
                named.id = ToolCall.freshID()
                return named
            }
            summary.toolCalls = calls
            // The client's calls pass the policy before they are returned; those it refuses or
            // answers itself are not, and when none is left the model reads why and goes on.
            var policyResults: [ToolResult] = []
            if !calls.isEmpty, !toolBox.runsAll(calls), summary.stopReason != .cancelled {
                var kept: [ToolCall] = []
                for call in calls {
                    switch try toolBox.review(call, round: round + 1, policy: chain) {
                    case .success(let allowed): kept.append(allowed)
                    case .failure(let answered): policyResults.append(answered.result)
                    }
                }
                for failure in chain.takeFailures() { emit(.hookFailure(failure)) }
                summary.toolCalls = kept
                if !kept.isEmpty { policyResults = [] }
            }
            guard !calls.isEmpty, toolBox.runsAll(calls) || !policyResults.isEmpty, summary.stopReason != .cancelled else {
                // The turn's figures: every round's tokens and decoding, the first token's wait.
                summary.statistics.generatedTokens = generated
                summary.statistics.reasoningTokens = reasoned
                summary.statistics.decodeDuration = decoding
                summary.statistics.timeToFirstToken = firstToken
                summary.statistics.toolResults = results
                summary.statistics.toolRounds = round
                summary.statistics.determined = determined
                summary.teacherForcing = forcing
                return summary
            }
            turn.append(ChatMessage(.assistant, summary.storedText, toolCalls: calls,
                                    reasoning: summary.reasoning.isEmpty ? nil : summary.reasoning))
            for call in calls { emit(.toolCall(call)) }
            var ran = policyResults
            for call in calls where policyResults.isEmpty {
                ran.append(try await toolBox.run(call, round: round + 1, policy: chain, approval: approval))
            }
            round += 1
            // What stays in the context beside the results: older exchanges can make room when
            // dropped, or shifted out.
            let kept = (overflowPolicy == .fail ? history : history.filter { $0.role == .system }) + turn
            let fitted = try await ToolBox.fitting(ran, after: kept, parameters: Self.parameters(ofRound: round, parameters), backend: backend)
            let reviewed = try toolBox.reviewed(fitted, round: round, limit: parameters.maxToolResult, policy: chain)
            for failure in chain.takeFailures() { emit(.hookFailure(failure)) }
            for result in reviewed {
                emit(.toolResult(result))
                results.append(result)
                turn.append(ChatMessage(.tool, result.content, toolCallID: result.call.id))
            }
        }
    }

    /// The parameters of round `round` of a turn asked with `parameters`: past
    /// ``GenerationParameters/maxToolRounds`` no tools are offered, and a forced tool choice holds
    /// for the first round only (the answer after the results is free).
    private static func parameters(ofRound round: Int, _ parameters: GenerationParameters) -> GenerationParameters {
        var roundParameters = parameters
        if round >= parameters.maxToolRounds { roundParameters.toolChoice = .none }
        if round > 0, roundParameters.toolChoice != .none { roundParameters.toolChoice = .auto }
        return roundParameters
    }

    /// Stops the reply being generated, if any. Unlike abandoning the stream, the stream still
    /// delivers its final event, with ``StopReason/cancelled`` and the statistics so far.
    public func cancelReply() {
        state.withLock { $0.running }?.cancel()
    }

    /// Waits until the reply being generated, if any, has ended: its backend is then free, even
    /// when the stream was abandoned part-way.
    public func waitForReply() async {
        await state.withLock { $0.running }?.value
    }

    /// Gives the ended reply to the recorder, if there is one, with the hooks that were enabled
    /// when it started.
    private func record(_ snapshot: State, question: ChatMessage?, rounds: [ChatMessage], answer: ChatMessage, summary: ReplySummary?) {
        guard let recorder = snapshot.recorder else { return }
        recorder.record(Exchange(messages: snapshot.history + (question.map { [$0] } ?? []), reply: answer, summary: summary,
                                      parameters: snapshot.parameters,
                                      plugins: snapshot.hooks.filter { !snapshot.disabledHooks.contains(ObjectIdentifier($0)) }
                                        .map(\.specification), rounds: rounds))
    }

    /// Appends the turn's messages and ends the busy state.
    private func commit(_ messages: [ChatMessage], disabled: Set<ObjectIdentifier>) {
        state.withLock { state in
            state.history += messages
            state.disabledHooks = disabled
            state.busy = false
            state.running = nil
        }
    }
}

/// Misuse of a ``ChatSession``.
public enum ChatSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A reply was requested while another was still streaming.
    case busy
    /// A reply to tool results was asked for, but the conversation does not end with any.
    case noToolResults

    public var description: String {
        switch self {
        case .busy: "the session is still producing a reply; wait for it to finish or cancel it"
        case .noToolResults: "the conversation does not end with tool results to answer; add the results of the last reply's calls"
        }
    }
}
