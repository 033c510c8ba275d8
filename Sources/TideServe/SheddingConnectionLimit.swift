import HummingbirdCore

/// At most `maximum` connections at once; at the limit, the connection that has waited longest
/// for its request (``UnansweredConnections``) is closed to take the next one, so that connections
/// held open by clients that send slowly or nothing cannot keep a real request out. Only when
/// every connection is being answered do further ones wait to be accepted.
struct SheddingConnectionLimit: AvailableConnectionsDelegate {
    let maximum: Int
    let unanswered: UnansweredConnections
    private var open = 0

    /// A limit of `maximum` connections, shedding from `unanswered`.
    init(_ maximum: Int, unanswered: UnansweredConnections) {
        self.maximum = maximum
        self.unanswered = unanswered
    }

    mutating func connectionOpened() {
        open += 1
    }

    mutating func connectionClosed() {
        open -= 1
    }

    /// Whether a connection may be accepted now; at the limit, one waiting for its request is
    /// closed, and the next is accepted once it has.
    func isAcceptingNewConnections() -> Bool {
        guard open >= maximum else { return true }
        unanswered.shedOldest()
        return false
    }
}
