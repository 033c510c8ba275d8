import TideCore

/// What a streamed reply's event gives, whatever API streamed it: more of the answer, more of
/// the reasoning, a piece of a tool call, or the reply's end.
public enum StreamedPiece: Sendable, Hashable {
    case text(String)
    case reasoning(String)
    /// A piece of the reply's call number `index`: its id and name (first), more of its arguments.
    case toolCall(WireToolCallDelta)
    case finished
}

/// Reads one API's stream of events into ``StreamedPiece``s. A server's error event is a
/// ``StreamedError/server(_:)``, an event the API does not send a ``StreamedError/malformed(_:)``.
public protocol StreamedReplyReader: Sendable {
    /// The pieces `event` gives; none for an event that carries none of them (a ping, a
    /// header of the response).
    mutating func read(_ event: ServerSentEvent) throws(StreamedError) -> [StreamedPiece]
}

/// An event a streamed reply cannot be read past.
public enum StreamedError: Error, Sendable, Hashable {
    /// The server reported an error, in its words.
    case server(String)
    /// The event is not one the API sends: what it held, in short.
    case malformed(String)
}
