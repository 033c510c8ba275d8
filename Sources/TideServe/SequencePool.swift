import TideCore

/// The sequences of a `BackendBatch`, lent to one request at a time. A request that finds
/// too few free waits its turn (first come, first served) and joins the running batch as soon as
/// enough are returned: a request for several choices (`n`) gets all its sequences at once or waits.
///
/// Each sequence remembers the conversation its cache last held (the request's messages and the
/// reply). A request gets the free sequence whose conversation it continues — all of it begins
/// the request, or it shares at least half of what follows the system prompt; the longest
/// shared beginning first — so a client going on with its conversation finds it still cached
/// while other clients come and go. A request that continues none gets the sequence used least
/// recently, which keeps the recent conversations cached longest (much as llama-server picks a
/// slot by prompt similarity).
actor SequencePool {
    private struct Idle {
        let backend: any ChatBackend
        /// The conversation its cache holds, as ``SequencePool/key(_:)`` writes it.
        var conversation: [UInt8]
    }

    /// Free sequences, least recently used first.
    private var idle: [Idle]
    private var waiters: [Waiter] = []
    private var nextWaiter = 0

    /// A request waiting for `count` sequences.
    private struct Waiter {
        let id: Int
        let count: Int
        let messages: [ChatMessage]
        let continuation: CheckedContinuation<[any ChatBackend], any Error>
    }

    /// How many sequences there are.
    let capacity: Int
    /// Every sequence, lent or free.
    private let all: [any ChatBackend]

    /// Every sequence of `batch`, keeping their states after long prompts in `promptStates`, if given.
    init(batch: any BackendBatch, promptStates: (any PromptStateStore)? = nil) throws {
        all = try (0..<batch.sequenceCapacity).map { _ in try batch.makeBackend(contextSize: nil) }
        if let promptStates { for backend in all { backend.keepPromptStates(in: promptStates) } }
        idle = all.map { Idle(backend: $0, conversation: []) }
        capacity = idle.count
    }

    /// Tokens held in every sequence's cache now.
    var cachedTokens: Int { all.reduce(0) { $0 + $1.cachedTokenCount } }

    /// Sequences lent out now.
    var busy: Int { capacity - idle.count }

    /// Requests waiting for a sequence.
    var waiting: Int { waiters.count }

    /// `count` free sequences for a request of `messages` (at most ``capacity``), waiting for them
    /// if need be: the first is the one whose cache the conversation continues
    /// (``choice(among:for:)``), the others those used least recently. Throws
    /// `CancellationError` when the task is cancelled while it waits.
    func acquire(_ count: Int = 1, for messages: [ChatMessage]) async throws -> [any ChatBackend] {
        precondition((1...capacity).contains(count), "a request for \(count) of \(capacity) sequences")
        if waiters.isEmpty, idle.count >= count { return take(count, for: messages) }
        let id = nextWaiter
        nextWaiter += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append(Waiter(id: id, count: count, messages: messages, continuation: continuation))
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
    }

    /// Returns a sequence whose cache now holds `conversation`; the longest-waiting requests get
    /// what they wait for as soon as there is enough of it.
    func release(_ backend: any ChatBackend, holding conversation: [ChatMessage]) {
        idle.append(Idle(backend: backend, conversation: Self.key(conversation)))
        serveWaiters()
    }

    /// Lends free sequences to the waiting requests, in the order they came, while the first has enough.
    private func serveWaiters() {
        while let first = waiters.first, idle.count >= first.count {
            waiters.removeFirst()
            first.continuation.resume(returning: take(first.count, for: first.messages))
        }
    }

    /// Takes `count` free sequences for `messages`: the one the conversation continues, then the
    /// least recently used.
    private func take(_ count: Int, for messages: [ChatMessage]) -> [any ChatBackend] {
        var taken = [idle.remove(at: Self.choice(among: idle.map(\.conversation), for: messages)).backend]
        taken += idle.prefix(count - 1).map(\.backend)
        idle.removeFirst(count - 1)
        return taken
    }

    /// The index of the sequence to lend among free ones holding `conversations` (least recently
    /// used first, as ``key(_:)`` writes them) to a request of `messages`: among those it
    /// continues — whose whole conversation begins the request, or which share at least half of
    /// the request past the system message and the next message's role — the one sharing the
    /// longest beginning, the latest of equals; else the first. (Most requests share the system
    /// prompt; that alone is no conversation continued.)
    static func choice(among conversations: [[UInt8]], for messages: [ChatMessage]) -> Int {
        let request = key(messages)
        // The system message, and the role of the message after it, are not the conversation.
        let leading = messages.first?.role == .system ? 1 : 0
        var framing = key(Array(messages.prefix(leading))).count
        if let next = messages.dropFirst(leading).first { framing += next.role.rawValue.utf8.count + 1 }
        var best: (index: Int, shared: Int)?
        for (index, conversation) in conversations.enumerated() {
            let shared = zip(conversation, request).prefix { $0 == $1 }.count
            let continued = shared - framing
            // The whole of what it holds, or most of the request, past the framing.
            guard continued > 0, shared == conversation.count || continued * 2 >= request.count - framing else { continue }
            if shared >= best?.shared ?? 0 { best = (index, shared) }
        }
        return best?.index ?? 0
    }

    /// A conversation as the bytes compared: each message's role and text, delimited.
    static func key(_ messages: [ChatMessage]) -> [UInt8] {
        var bytes: [UInt8] = []
        for message in messages {
            bytes += message.role.rawValue.utf8
            bytes.append(0x1F)
            bytes += message.content.utf8
            bytes.append(0x1E)
        }
        return bytes
    }

    private func abandon(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
        // A large request that left may have held up smaller ones behind it.
        serveWaiters()
    }
}
