import Foundation
import NIOCore
import NIOHTTPTypes
import ServiceLifecycle
import Synchronization

/// Cuts a connection whose request is not whole within the request timeout: the head and the
/// body together, from the moment the connection opened (or its last response ended), however
/// the bytes trickle in — an idle timer alone restarts at every byte. While a connection waits
/// for its request it is listed in ``UnansweredConnections``, so that a full server can shed it.
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private let unanswered: UnansweredConnections
    private var timer: Scheduled<Void>?
    /// Requests read whole, and responses written whole. While no request read whole awaits
    /// its response (the connection is idle, receiving a request, or was answered before its
    /// request's end), the deadline runs; a pipelined request read during a response waits for
    /// its own response without one.
    private var requestsRead = 0
    private var responsesWritten = 0

    /// A deadline of `timeout` for each request of a connection, listed in `unanswered` while it waits for one.
    init(timeout: TimeAmount, unanswered: UnansweredConnections) {
        self.timeout = timeout
        self.unanswered = unanswered
    }

    func handlerAdded(context: ChannelHandlerContext) {
        update(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop(context)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            requestsRead += 1
            update(context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        let written = promise ?? context.eventLoop.makePromise()
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        written.futureResult.hop(to: context.eventLoop).whenSuccess {
            let (handler, context) = bound.value
            handler.responsesWritten += 1
            if context.channel.isActive { handler.update(context) }
        }
        context.write(data, promise: written)
    }

    /// Starts the deadline (listing the connection as waiting) when no request read whole awaits
    /// its response, and it is not running yet; stops it when one does.
    private func update(_ context: ChannelHandlerContext) {
        guard requestsRead <= responsesWritten else { return stop(context) }
        guard timer == nil else { return }
        let channel = context.channel
        unanswered.add(channel)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }

    /// No deadline, not listed.
    private func stop(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        unanswered.remove(context.channel)
    }
}

/// The connections waiting for (or still receiving) a request, oldest first: what a server at
/// its connection limit closes to take a new one, so that clients that open connections and
/// send slowly, or nothing, cannot keep the others out. A connection being answered is never
/// among them.
final class UnansweredConnections: Sendable {
    private let waiting = Mutex<[ObjectIdentifier: (since: ContinuousClock.Instant, channel: any Channel)]>([:])

    /// Lists `channel` as waiting for a request from now.
    func add(_ channel: any Channel) {
        waiting.withLock { $0[ObjectIdentifier(channel)] = (.now, channel) }
    }

    /// Takes `channel` off the list.
    func remove(_ channel: any Channel) {
        _ = waiting.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes every connection waiting for its request (the server is stopping: none will be answered).
    func closeAll() {
        let channels = waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting.values.map(\.channel)
        }
        for channel in channels { channel.close(promise: nil) }
    }

    /// Closes the connection that has waited longest for its request; `false` when none waits.
    @discardableResult
    func shedOldest() -> Bool {
        let oldest = waiting.withLock { waiting -> (any Channel)? in
            guard let key = waiting.min(by: { $0.value.since < $1.value.since })?.key else { return nil }
            return waiting.removeValue(forKey: key)?.channel
        }
        oldest?.close(promise: nil)
        return oldest != nil
    }
}

/// Closes the connections still waiting for (or receiving) their request as soon as the server
/// begins to stop: a stop lets running replies finish, but a request not yet whole would hold
/// the server until its deadline.
struct UnansweredConnectionsCloser: Service {
    let unanswered: UnansweredConnections

    func run() async throws {
        try? await gracefulShutdown()
        unanswered.closeAll()
    }
}
