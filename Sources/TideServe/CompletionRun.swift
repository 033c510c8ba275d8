import Logging
import Synchronization
import TideCore

/// One request's reply on a sequence lent by the pool: fresh plugin instances, a session holding
/// the request's conversation, and the reply's events. The sequence goes back to the pool when
/// the reply has ended, however it ends.
final class CompletionRun: @unchecked Sendable {
    // Used by one request's task at a time: started, then read to its end.
    /// The hold on the model, given back after the sequence.
    private let lease: ModelLease
    private let backend: any ChatBackend
    private let session: ChatSession
    private var iterator: AsyncThrowingStream<ReplyEvent, any Error>.AsyncIterator
    private var first: ReplyEvent?
    private let returned = Mutex(false)
    private let logger: Logger
    /// When the pool lent the request its sequences.
    let sequenceLent: ContinuousClock.Instant
    /// Whether the calls the model writes go to the client as they are written: the request
    /// brings its own tools (the server's own would run here), and no plugin reviews calls
    /// (`on_tool_call` must see a call whole, and may refuse it, before the client sees it).
    let streamsCalls: Bool

    /// Waits for a sequence for each of the request's choices (all at once), starts their replies
    /// and waits for each one's first event, so that a prompt that does not fit is an error before
    /// any response is sent. The choices share the prompt's evaluation: the first reads it, and
    /// the others start from a copy of its sequence's cache (llama.cpp's `llama_memory_seq_cp`, as
    /// llama-server does for `n`), evaluating only what differs — the prompt's last token, for
    /// its scores. Each samples with a seed of its own: the request's plus the choice's index (a
    /// random one per choice when the request gives none). `id` is the completion's, which names
    /// the replies in the trace of hook calls.
    static func start(_ job: CompletionJob, id: String, lease: ModelLease, logger: Logger) async throws -> [CompletionRun] {
        let pool = lease.pool
        let backends = try await pool.acquire(job.choices, for: job.messages)
        let lent = ContinuousClock.now
        let first: CompletionRun
        do {
            first = try await start(job, id: id, choice: 0, on: backends[0], lent: lent, lease: lease, logger: logger)
        } catch {
            for backend in backends.dropFirst() { await pool.release(backend, holding: []) }
            throw error
        }
        guard backends.count > 1 else { return [first] }
        let started = await withTaskGroup(of: (Int, Result<CompletionRun, any Error>).self) { group in
            for (index, backend) in backends.enumerated().dropFirst() {
                group.addTask {
                    // A choice that fails to start has returned its sequence.
                    await backend.copyCache(of: backends[0])
                    do {
                        return (index, .success(try await start(job, id: id, choice: index, on: backend, lent: lent, lease: lease,
                                                                logger: logger)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [(Int, Result<CompletionRun, any Error>)]()) { $0.append($1) }.sorted { $0.0 < $1.0 }
        }
        let runs = [first] + started.compactMap { try? $0.1.get() }
        if let failure = started.lazy.compactMap({ if case .failure(let error) = $0.1 { error } else { nil } }).first {
            for run in runs {
                run.cancel()
                await run.finish()
            }
            throw failure
        }
        return runs
    }

    /// Starts choice number `choice` of `job` on `backend`, lent by the pool of `lease`'s model,
    /// and waits for its first event; on failure, the sequence has gone back to the pool.
    private static func start(_ job: CompletionJob, id: String, choice: Int, on backend: any ChatBackend, lent: ContinuousClock.Instant,
                              lease: ModelLease, logger: Logger) async throws -> CompletionRun
    {
        let configuration = lease.configuration
        let hooks: [any ChatHook]
        do {
            hooks = try configuration.hooks.hooks(log: { logger.info("plugin: \($0)") })
        } catch {
            await lease.pool.release(backend, holding: [])
            throw error
        }
        var parameters = job.parameters
        parameters.seed = parameters.seed.map { $0 &+ UInt32(choice) }
        let run = CompletionRun(job, parameters: parameters, backend: backend, hooks: hooks, toolProviders: configuration.toolProviders,
                                hookErrorPolicy: configuration.hookErrorPolicy,
                                recorder: configuration.recorder?(job.endpoint.path),
                                trace: configuration.hookTrace?(job.choices > 1 ? "\(id) choice \(choice)" : id),
                                lease: lease, lent: lent, logger: logger)
        do {
            run.first = try await run.iterator.next()
        } catch {
            await run.finish()
            throw error
        }
        return run
    }

    private init(_ job: CompletionJob, parameters: GenerationParameters, backend: any ChatBackend, hooks: [any ChatHook],
                 toolProviders: [any ToolProvider], hookErrorPolicy: HookErrorPolicy,
                 recorder: (any ExchangeRecorder)?, trace: (any HookTrace)?, lease: ModelLease, lent: ContinuousClock.Instant,
                 logger: Logger) {
        self.lease = lease
        sequenceLent = lent
        streamsCalls = !job.parameters.tools.isEmpty && !hooks.contains { $0.points.contains(.toolCall) }
        self.backend = backend
        self.logger = logger
        session = ChatSession(backend: backend, systemPrompt: nil, parameters: parameters, hooks: hooks, toolProviders: toolProviders,
                              hookErrorPolicy: hookErrorPolicy)
        session.history = job.history
        session.recorder = recorder
        session.hookTrace = trace
        let events = if let question = job.question { session.reply(to: question) } else { session.replyToToolResults() }
        iterator = events.makeAsyncIterator()
    }

    /// The next event; `nil` after the last. Hook failures are logged, not returned.
    func next() async throws -> ReplyEvent? {
        while true {
            let event: ReplyEvent?
            if let first {
                event = first
                self.first = nil
            } else {
                event = try await iterator.next()
            }
            guard case .hookFailure(let failure) = event else { return event }
            logger.warning("\(failure) (skipped for the rest of this request)")
        }
    }

    /// Stops the reply (the client left); the events still end, with a cancelled summary.
    func cancel() {
        session.cancelReply()
    }

    /// Waits for the reply to end (after a cancel, that is at once) and returns the sequence.
    func finish() async {
        let alreadyReturned = returned.withLock { returned in
            defer { returned = true }
            return returned
        }
        guard !alreadyReturned else { return }
        await session.waitForReply()
        await lease.pool.release(backend, holding: session.history)
    }

    /// A run dropped without ``finish()`` (its response was never written) still returns its sequence.
    deinit {
        guard !returned.withLock({ $0 }) else { return }
        session.cancelReply()
        Task { [session, lease, backend] in
            await session.waitForReply()
            await lease.pool.release(backend, holding: session.history)
        }
    }
}
