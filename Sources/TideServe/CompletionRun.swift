import Logging
import Synchronization
import TideCore

/// One request's reply on a sequence lent by the pool: fresh plugin instances, a session holding
/// the request's conversation, and the reply's events. The sequence goes back to the pool when
/// the reply has ended, however it ends.
final class CompletionRun: @unchecked Sendable {
    // Used by one request's task at a time: started, then read to its end.
    private let pool: SequencePool
    private let backend: any ChatBackend
    private let session: ChatSession
    private var iterator: AsyncThrowingStream<ReplyEvent, any Error>.AsyncIterator
    private var first: ReplyEvent?
    private let returned = Mutex(false)
    private let logger: Logger

    /// Waits for a sequence, starts the reply and waits for its first event, so that a prompt
    /// that does not fit is an error before any response is sent.
    static func start(_ job: CompletionJob, configuration: ServeConfiguration, pool: SequencePool, logger: Logger)
        async throws -> CompletionRun
    {
        let hooks = try configuration.hooks.hooks(log: { logger.info("plugin: \($0)") })
        let backend = try await pool.acquire(for: job.messages)
        let run = CompletionRun(job, backend: backend, hooks: hooks, hookErrorPolicy: configuration.hookErrorPolicy,
                                recorder: configuration.recorder?(job.endpoint.path), pool: pool, logger: logger)
        do {
            run.first = try await run.iterator.next()
        } catch {
            await run.finish()
            throw error
        }
        return run
    }

    private init(_ job: CompletionJob, backend: any ChatBackend, hooks: [any ChatHook], hookErrorPolicy: HookErrorPolicy,
                 recorder: (any ExchangeRecorder)?, pool: SequencePool, logger: Logger) {
        self.pool = pool
        self.backend = backend
        self.logger = logger
        session = ChatSession(backend: backend, systemPrompt: nil, parameters: job.parameters, hooks: hooks,
                              hookErrorPolicy: hookErrorPolicy)
        session.history = job.history
        session.recorder = recorder
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
        await pool.release(backend, holding: session.history)
    }

    /// A run dropped without ``finish()`` (its response was never written) still returns its sequence.
    deinit {
        guard !returned.withLock({ $0 }) else { return }
        session.cancelReply()
        Task { [session, pool, backend] in
            await session.waitForReply()
            await pool.release(backend, holding: session.history)
        }
    }
}
