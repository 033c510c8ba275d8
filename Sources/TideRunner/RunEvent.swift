import TideScript

/// What happens while a script is replayed, for a live view of the transcript.
public enum RunEvent: Sendable {
    /// A line of the script has been applied: a directive, or a turn that is not generated.
    case item(ScriptItem)
    /// The model starts answering the user turn just shown.
    case replyStarted
    /// Text of the reply, as it streams.
    case text(String)
    /// A thinking model's reasoning, as it streams, before the reply's text.
    case reasoning(String)
    /// The reply is complete (with the plugin failures it met, which ``text`` did not show), and
    /// its expectations checked.
    case replyFinished(ReplyResult)
    /// The transcript so far, after each reply (to flush it turn by turn).
    case transcript(ConversationScript)
}
