import Foundation
import GRDB
import TideCore

/// The responses `tide serve` stores for OpenAI's Responses API, kept in the conversation log's
/// `response` table, so that a chain of `previous_response_id` outlives a restart. A write goes
/// on the log's own queue; a read waits for the writes before it.
public final class ResponseLog: ResponseStore {
    let database: LogDatabase

    /// The responses kept in `database`.
    public init(database: LogDatabase) {
        self.database = database
    }

    public func save(_ response: StoredResponse) {
        let conversation = String(decoding: (try? JSONEncoder().encode(response.conversation)) ?? Data("[]".utf8), as: UTF8.self)
        let created = ConversationLog.timestamp(Date())
        database.enqueue { db in
            try db.execute(sql: "INSERT OR REPLACE INTO response (id, created, conversation, body) VALUES (?, ?, ?, ?)",
                           arguments: [response.id, created, conversation, response.body])
        }
    }

    public func load(id: String) throws -> StoredResponse? {
        try database.access { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT conversation, body FROM response WHERE id = ?", arguments: [id]) else {
                return nil
            }
            let conversation = try JSONDecoder().decode([ChatMessage].self, from: Data((row["conversation"] as String).utf8))
            return StoredResponse(id: id, conversation: conversation, body: row["body"])
        }
    }

    public func delete(id: String) throws -> Bool {
        try database.access { db in
            try db.execute(sql: "DELETE FROM response WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }
}
