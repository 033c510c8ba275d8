/// What keeps one client from holding up the others: how much one request may ask for, how long a
/// connection may stay silent, how many connections are served at once, and how long a stop
/// waits for the replies still running.
public struct ServerLimits: Sendable, Hashable {
    /// The most messages one request may hold; more is a 400 before any work.
    public var maximumMessages: Int
    /// The most characters (Unicode scalars) the messages of one request may hold together; more
    /// is a 400 before any work.
    public var maximumCharacters: Int
    /// How long a connection has to send its whole request, head and body, from its start or
    /// its last response's end (and so how long it may stay silent between requests) before it
    /// is closed.
    public var requestTimeout: Duration
    /// Connections served at once. At the limit, the one that has waited longest for its request
    /// is closed to take the next; while every one is being answered, further ones wait in the
    /// listen queue.
    public var maximumConnections: Int
    /// How long a stop (SIGTERM, SIGINT) lets running replies finish before their connections
    /// are closed.
    public var shutdownGrace: Duration

    /// The defaults of `tide serve`.
    public init(maximumMessages: Int = 1024, maximumCharacters: Int = 1_000_000, requestTimeout: Duration = .seconds(30),
                maximumConnections: Int = 512, shutdownGrace: Duration = .seconds(5)) {
        self.maximumMessages = maximumMessages
        self.maximumCharacters = maximumCharacters
        self.requestTimeout = requestTimeout
        self.maximumConnections = maximumConnections
        self.shutdownGrace = shutdownGrace
    }
}
