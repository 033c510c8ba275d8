import TideCore
import TideLog
import TideScript

extension ChatController {
    /// Makes the logged `conversation` this chat's: its messages become the history (the next
    /// reply's prompt evaluates them in one pass), and its exchanges go on in the same logged
    /// conversation. The chat's settings are the caller's: `tide chat --resume` starts the chat
    /// with the conversation's system prompt, parameters and plugins.
    public func resume(_ conversation: LoggedConversation) {
        // The chat's system prompt stands (the conversation's, unless --system chose another).
        let history = conversation.history.replacingSystemPrompt(session.history.first { $0.role == .system }?.content ?? "")
        session.history = history
        records = conversation.messages.filter { $0.role == .assistant }.map { $0.reply?.record }
        turnSettings = Array(repeating: nil, count: history.count { $0.role == .user })
        session.recorder = configuration.log.map { log in
            ConversationLog(continuing: conversation.summary.id, messages: conversation.history, database: log, source: .chat,
                            model: setup.lastingModelName)
        }
        var notice = "resumed conversation \(conversation.summary.id): \(exchangeCount) exchange\(exchangeCount == 1 ? "" : "s")"
        if let last = history.last(where: { $0.role == .user }) { notice += "; last message: " + ColumnText.cell(last.content) }
        output(.notice(notice))
    }

    /// `/history`: the newest `count` conversations of the log.
    func showHistory(_ count: Int) throws {
        guard let log = configuration.log else {
            throw ChatError("this chat is not logged (--no-log, TIDE_NO_LOG or tide logs off), so it has no history to show")
        }
        let conversations: [ConversationSummary]
        do {
            conversations = try log.conversations(limit: count)
        } catch {
            throw ChatError("\(error)")
        }
        guard !conversations.isEmpty else {
            output(.notice("no conversation logged yet"))
            return
        }
        output(.notice(ColumnText.lines([["ID", "STARTED", "SOURCE", "REPLIES", "FIRST MESSAGE"]] + conversations.map {
            ["\($0.id)", $0.localStart, $0.source.rawValue, "\($0.replies)", ColumnText.cell($0.firstMessage)]
        }).joined(separator: "\n") + "\n(tide chat --resume ID goes on with one; tide logs show ID shows it)"))
    }
}
