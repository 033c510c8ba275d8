import Foundation
import GRDB
import Synchronization
import TideCore

/// Where a logged conversation came from.
public enum LogSource: String, Sendable, Hashable, CaseIterable, Codable {
    case generate, chat, run, serve
}

/// One conversation's record in the log: given every exchange of a session (as its
/// ``TideCore/ExchangeRecorder``), it writes the conversation's messages and, for each reply,
/// its settings and figures. The conversation's row is written with its first exchange; a
/// session whose history no longer continues what was logged (it was cleared, cut or replaced)
/// goes on in a new conversation.
public final class ConversationLog: ExchangeRecorder {
    private let database: LogDatabase
    private let source: LogSource
    private let origin: String?
    private let model: String
    /// The conversation being written and the messages it holds; touched on the log's queue.
    private let written = Mutex<(id: Int64?, messages: [ChatMessage])>((nil, []))

    /// A log of a conversation from `source` on `model`; `origin` says more (a script's path).
    public init(database: LogDatabase, source: LogSource, model: String, origin: String? = nil) {
        self.database = database
        self.source = source
        self.model = model
        self.origin = origin
    }

    /// Continues the logged conversation `id`, whose messages are `messages` (to resume it).
    public convenience init(continuing id: Int64, messages: [ChatMessage], database: LogDatabase, source: LogSource, model: String,
                            origin: String? = nil) {
        self.init(database: database, source: source, model: model, origin: origin)
        written.withLock { $0 = (id, messages) }
    }

    public func record(_ exchange: Exchange) {
        let created = Self.timestamp(Date.now)
        database.enqueue { [self] db in
            let (id, logged) = written.withLock { $0 }
            // The message table holds the conversation's turns; tool calls and results go with the reply they led to.
            let sent = Self.turns(exchange.messages)
            var conversation = id
            var start = logged.count
            if conversation == nil || sent.count < logged.count
                || !zip(logged, sent).allSatisfy({ $0.role == $1.role && $0.content == $1.content })
            {
                try db.execute(sql: "INSERT INTO conversation (started, model, source, origin) VALUES (?, ?, ?, ?)",
                               arguments: [created, model, source.rawValue, origin])
                conversation = db.lastInsertedRowID
                start = 0
            }
            guard let conversation else { return }
            let messages = sent + [exchange.reply]
            for position in start..<messages.count {
                try db.execute(sql: """
                    INSERT INTO message (conversation_id, position, role, content, reasoning, created) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [conversation, position, messages[position].role.rawValue, messages[position].content,
                                     messages[position].reasoning, created])
            }
            let reply = db.lastInsertedRowID
            try Self.insertReply(exchange, message: reply, in: db)
            try Self.insertToolCalls(exchange, message: reply, in: db)
            written.withLock { $0 = (conversation, messages) }
        }
    }

    /// The turns of the conversation in `messages`, without its rounds of tool calls (an
    /// assistant message with calls and the results after it). A reply that ended with calls
    /// left to the caller, with no results after it, is a turn.
    static func turns(_ messages: [ChatMessage]) -> [ChatMessage] {
        messages.indices.filter { index in
            let message = messages[index]
            let answered = index + 1 < messages.count && messages[index + 1].role == .tool
            return message.role != .tool && !(message.role == .assistant && !message.toolCalls.isEmpty && answered)
        }.map { messages[$0] }
    }

    /// The reply's tool calls: the rounds given before it (at the end of the messages sent),
    /// its own rounds with each result's time, and the calls it ended with, left to the caller.
    private static func insertToolCalls(_ exchange: Exchange, message reply: Int64, in db: Database) throws {
        let lastTurn = exchange.messages.lastIndex { $0.role == .user } ?? -1
        let given = exchange.messages[(lastTurn + 1)...]
        let results = Dictionary((exchange.summary?.statistics.toolResults ?? []).map { ($0.call.id, $0) }) { first, _ in first }
        var position = 0
        var round = 0
        func insert(_ messages: some Collection<ChatMessage>, given: Bool) throws {
            for message in messages where message.role == .assistant && !message.toolCalls.isEmpty {
                for call in message.toolCalls {
                    let answer = messages.first { $0.role == .tool && $0.toolCallID == call.id }
                    let result = results[call.id]
                    try db.execute(sql: """
                        INSERT INTO tool_call (message_id, position, round, round_text, given, call_id, name, arguments, written,
                            result, failed, seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [reply, position, round, message.content, given, call.id, call.name, call.arguments,
                                         call.written, answer?.content, result?.failed ?? false, result?.duration.seconds])
                    position += 1
                }
                round += 1
            }
        }
        try insert(given, given: true)
        try insert(exchange.rounds, given: false)
        try insert([exchange.reply], given: false)
    }

    /// The reply's row: its settings and figures.
    private static func insertReply(_ exchange: Exchange, message: Int64, in db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let parameters = String(decoding: try encoder.encode(ParametersJSON(exchange.parameters)), as: UTF8.self)
        let plugins = String(decoding: try encoder.encode(exchange.plugins), as: UTF8.self)
        let summary = exchange.summary
        let statistics = summary?.statistics
        try db.execute(sql: """
            INSERT INTO reply (message_id, parameters, plugins, stop_reason, prompt_tokens, reused_prompt_tokens,
                generated_tokens, time_to_first_token, tokens_per_second, decode_seconds, hook_seconds, rewinds, interrupted,
                reasoning_tokens)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [message, parameters, plugins, summary?.stopReason.description, statistics?.promptTokens,
                             statistics?.reusedPromptTokens, statistics?.generatedTokens, statistics?.timeToFirstToken?.seconds,
                             statistics?.tokensPerSecond, statistics?.decodeDuration.seconds, statistics?.hookDuration.seconds,
                             statistics?.rewinds ?? 0, exchange.reply.interrupted,
                             statistics.flatMap { $0.reasoningTokens > 0 ? $0.reasoningTokens : nil }])
    }

    /// A time as the log stores it: ISO 8601 in UTC, to the millisecond (sorts as it reads).
    static func timestamp(_ date: Date) -> String {
        timestampStyle.format(date)
    }

    static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
