import TideCore

/// What a chat shows, in order. The REPL styles each kind; tests record them.
public enum ChatEvent: Sendable, Hashable {
    /// A user turn sent on the user's behalf (the turns of a script that `/open` replays).
    case userTurn(String)
    /// The next piece of a reply, as it streams.
    case replyText(String)
    /// The next piece of a thinking model's reasoning, before the reply's text (shown unless
    /// `/set reasoning hide`).
    case replyReasoning(String)
    /// The reply ended: how, or `nil` when it failed (a ``problem(_:)`` says why).
    case replyEnded(StopReason?)
    /// A line of the trace of hook calls (`/trace on`): a call, or a rewind and what it took back.
    case trace(String)
    /// What a command reports.
    case notice(String)
    /// Something went wrong; the chat goes on.
    case problem(String)
}

/// What the REPL does after an input.
public enum ChatOutcome: Sendable, Hashable {
    /// Read the next input.
    case proceed
    /// Leave (`/quit`).
    case quit
}
