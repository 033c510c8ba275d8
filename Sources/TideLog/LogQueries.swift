import Foundation
import GRDB
import TideCore

extension LogDatabase {
    /// A filter on the conversations listed.
    public struct Filter: Sendable, Hashable {
        /// Only conversations on this model.
        public var model: String?
        /// Only conversations from this source.
        public var source: LogSource?

        public init(model: String? = nil, source: LogSource? = nil) {
            self.model = model
            self.source = source
        }
    }

    /// The `limit` newest conversations that pass `filter`, newest first.
    public func conversations(_ filter: Filter = Filter(), limit: Int) throws -> [ConversationSummary] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let model = filter.model {
            conditions.append("c.model = ?")
            arguments += [model]
        }
        if let source = filter.source {
            conditions.append("c.source = ?")
            arguments += [source.rawValue]
        }
        arguments += [limit]
        return try access { db in
            try Row.fetchAll(db, sql: Self.summarySQL + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                                 + " ORDER BY c.id DESC LIMIT ?", arguments: arguments).map(Self.summary)
        }
    }

    /// The newest conversation from `source`, if any.
    public func latest(from source: LogSource) throws -> ConversationSummary? {
        try conversations(Filter(source: source), limit: 1).first
    }

    /// Messages matching `query` (SQLite FTS5 syntax: words, "phrases", AND/OR/NOT, prefix*),
    /// newest first, at most `limit`; each excerpt has its matches between `open` and `close`.
    /// A query FTS5 cannot read is the query's error (``checkSearch(_:)``), never the log's.
    public func search(_ query: String, limit: Int, open: String, close: String) throws -> [SearchHit] {
        try Self.checkSearch(query)
        return try access { db in
            let hits = try Row.fetchAll(db, sql: """
                SELECT m.conversation_id AS conversation, m.role AS role, snippet(message_text, 0, ?, ?, '…', 16) AS excerpt
                FROM message_text JOIN message m ON m.id = message_text.rowid
                WHERE message_text MATCH ? ORDER BY message_text.rowid DESC LIMIT ?
                """, arguments: [open, close, query, limit])
            var summaries: [Int64: ConversationSummary] = [:]
            return try hits.compactMap { hit in
                let id: Int64 = hit["conversation"]
                if summaries[id] == nil {
                    summaries[id] = try Row.fetchOne(db, sql: Self.summarySQL + " WHERE c.id = ?", arguments: [id]).map(Self.summary)
                }
                return summaries[id].map { SearchHit(conversation: $0, role: ChatRole(rawValue: hit["role"]) ?? .user, excerpt: hit["excerpt"]) }
            }
        }
    }

    /// Throws when FTS5 cannot read `query`: it is run against an empty full-text table in memory
    /// first, so that whatever SQLite says of it (an unterminated string, an unknown special
    /// query, a syntax error) is said of the query, with the syntax Tide can run, and not of the
    /// log's file.
    static func checkSearch(_ query: String) throws {
        do {
            let probe = try DatabaseQueue()
            try probe.write { db in
                try db.execute(sql: "CREATE VIRTUAL TABLE probe USING fts5 (content)")
                _ = try Row.fetchAll(db, sql: "SELECT rowid FROM probe WHERE probe MATCH ?", arguments: [query])
            }
        } catch let error as DatabaseError {
            throw LogError("'\(query)' is not a search Tide can run (\(error.message ?? "\(error.resultCode)")); write words, "
                + "\"a phrase\" in double quotes, AND, OR, NOT, or a prefix*")
        }
    }

    /// The conversation `id` with every message; `nil` if the log has none by that id.
    public func conversation(_ id: Int64) throws -> LoggedConversation? {
        try access { db in
            guard let row = try Row.fetchOne(db, sql: Self.summarySQL + " WHERE c.id = ?", arguments: [id]) else { return nil }
            let calls = Dictionary(grouping: try Row.fetchAll(db, sql: """
                SELECT t.* FROM tool_call t JOIN message m ON m.id = t.message_id WHERE m.conversation_id = ?
                ORDER BY t.message_id, t.position
                """, arguments: [id]), by: { $0["message_id"] as Int64 })
            let messages = try Row.fetchAll(db, sql: """
                SELECT m.role, m.content, m.reasoning, m.created, r.* FROM message m LEFT JOIN reply r ON r.message_id = m.id
                WHERE m.conversation_id = ? ORDER BY m.position
                """, arguments: [id]).map { row in
                    var message = Self.message(row)
                    if let id: Int64 = row["message_id"] { message.reply?.toolCalls = (calls[id] ?? []).map(Self.toolCall) }
                    return message
                }
            return LoggedConversation(summary: Self.summary(row), messages: messages)
        }
    }

    /// Deletes the conversations `ids`; returns the ids it found.
    public func remove(_ ids: [Int64]) throws -> [Int64] {
        try access { db in
            try ids.filter { id in
                try db.execute(sql: "DELETE FROM conversation WHERE id = ?", arguments: [id])
                return db.changesCount > 0
            }
        }
    }

    /// How many conversations and messages the log holds.
    public func counts() throws -> (conversations: Int, messages: Int) {
        try access { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM conversation") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0)
        }
    }

    /// A conversation's row with its first user message and its count of replies.
    private static let summarySQL = """
        SELECT c.id, c.started, c.model, c.source, c.origin,
            (SELECT content FROM message WHERE conversation_id = c.id AND role = 'user' ORDER BY position LIMIT 1) AS first_message,
            (SELECT count(*) FROM message m JOIN reply r ON r.message_id = m.id WHERE m.conversation_id = c.id) AS replies
        FROM conversation c
        """

    private static func summary(_ row: Row) -> ConversationSummary {
        ConversationSummary(id: row["id"], started: row["started"], model: row["model"],
                            source: LogSource(rawValue: row["source"]) ?? .generate, origin: row["origin"],
                            firstMessage: row["first_message"] ?? "", replies: row["replies"])
    }

    private static func toolCall(_ row: Row) -> LoggedToolCall {
        LoggedToolCall(round: row["round"], roundText: row["round_text"], given: row["given"],
                       call: ToolCall(id: row["call_id"], name: row["name"], arguments: row["arguments"], written: row["written"]),
                       result: row["result"], failed: row["failed"], seconds: row["seconds"])
    }

    private static func message(_ row: Row) -> LoggedMessage {
        var message = LoggedMessage(role: ChatRole(rawValue: row["role"]) ?? .user, content: row["content"], created: row["created"],
                                    reasoning: row["reasoning"])
        if let parameters: String = row["parameters"] {
            let decoder = JSONDecoder()
            message.reply = LoggedReply(
                parameters: (try? decoder.decode(ParametersJSON.self, from: Data(parameters.utf8))) ?? ParametersJSON(GenerationParameters()),
                plugins: (try? decoder.decode([String].self, from: Data((row["plugins"] as String? ?? "[]").utf8))) ?? [],
                stopReason: row["stop_reason"], promptTokens: row["prompt_tokens"], reusedPromptTokens: row["reused_prompt_tokens"],
                generatedTokens: row["generated_tokens"], timeToFirstToken: row["time_to_first_token"],
                tokensPerSecond: row["tokens_per_second"], hookSeconds: row["hook_seconds"], rewinds: row["rewinds"],
                interrupted: row["interrupted"], reasoningTokens: row["reasoning_tokens"])
        }
        return message
    }
}
