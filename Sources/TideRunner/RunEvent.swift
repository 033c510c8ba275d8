import TideScript

/// What happens while a script is replayed, for a live view of the transcript.
public enum RunEvent: Sendable {
    /// A line of the script has been applied: a directive, or a turn that is not generated.
    case item(ScriptItem)
    /// The model starts answering the user turn just shown.
    case replyStarted
    /// Text of the reply, as it streams.
    case text(String)
    /// A plugin failed (and is now disabled).
    case hookFailure(String)
    /// The reply is complete, and its expectations checked.
    case replyFinished(ReplyResult)
    /// The transcript so far, after each reply (to flush it turn by turn).
    case transcript(ConversationScript)
}
