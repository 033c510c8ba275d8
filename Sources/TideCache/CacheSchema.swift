import GRDB

/// The reply cache's table (docs/conversations.md, "What was computed is not computed again"),
/// built by versioned migrations (``TideLog/SQLiteFile`` runs them):
///
/// - `reply`: one row per reply kept — its key (the SHA-256 of its scope, parameters and
///   prompt), the reply as JSON with that JSON's SHA-256, so that a damaged row is dropped
///   rather than trusted, its size, and when it was last given, which decides what goes first
///   when the cache outgrows its size.
enum CacheSchema {
    /// The migrations in order: version N is reached by running the first N.
    static let migrations: [@Sendable (Database) throws -> Void] = [version1]

    private static func version1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE reply (
                key BLOB PRIMARY KEY,
                value BLOB NOT NULL,
                checksum BLOB NOT NULL,
                size INTEGER NOT NULL,
                used REAL NOT NULL
            );
            CREATE INDEX reply_used ON reply (used);
            """)
    }
}
