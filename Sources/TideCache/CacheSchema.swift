import GRDB

/// The cache's tables (docs/conversations.md, "What was computed is not computed again"),
/// built by versioned migrations (``TideLog/SQLiteFile`` runs them):
///
/// - `reply`: one row per reply kept — its key (the SHA-256 of its scope, parameters and
///   prompt), the reply as JSON with that JSON's SHA-256, so that a damaged row is dropped
///   rather than trusted, its size, and when it was last given, which decides what goes first
///   when the cache outgrows its size;
/// - `prompt_state` (version 2): one row per model state kept after a long prompt, in a file of
///   its own in `states/` named by its key (the SHA-256 of its scope and tokens) — its scope, its
///   tokens (a prompt is given the state that shares its longest start), the file's SHA-256 and
///   size, and when it was last loaded;
/// - `case_result` (version 3): one row per case kept whole, as `reply` keeps a reply — its key
///   (the SHA-256 of its identity), its result as JSON with that JSON's SHA-256, its size, and
///   when it was last given.
enum CacheSchema {
    /// The migrations in order: version N is reached by running the first N.
    static let migrations: [@Sendable (Database) throws -> Void] = [version1, version2, version3]

    private static func version1(_ db: Database) throws {
        try db.execute(sql: valueTable("reply"))
    }

    /// A table keeping values as JSON under their keys (`reply`, `case_result`), indexed by last use.
    private static func valueTable(_ name: String) -> String {
        """
        CREATE TABLE \(name) (
            key BLOB PRIMARY KEY,
            value BLOB NOT NULL,
            checksum BLOB NOT NULL,
            size INTEGER NOT NULL,
            used REAL NOT NULL
        );
        CREATE INDEX \(name)_used ON \(name) (used);
        """
    }

    private static func version2(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE prompt_state (
                key BLOB PRIMARY KEY,
                scope TEXT NOT NULL,
                tokens BLOB NOT NULL,
                checksum BLOB NOT NULL,
                size INTEGER NOT NULL,
                used REAL NOT NULL
            );
            CREATE INDEX prompt_state_scope ON prompt_state (scope);
            CREATE INDEX prompt_state_used ON prompt_state (used);
            """)
    }

    private static func version3(_ db: Database) throws {
        try db.execute(sql: valueTable("case_result"))
    }
}
