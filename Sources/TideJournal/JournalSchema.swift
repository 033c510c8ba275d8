import GRDB

/// The journal's tables (docs/conversations.md, "Runs that last"), built by versioned
/// migrations (``SQLiteFile`` runs them):
///
/// - `run`: one row per `tide run` — when it started and finished, its folder and arguments,
///   targets, repetitions, the runs of cases it is made of, and its last counts;
/// - `case_run`: one row per run of a case, written in its own transaction as it finishes — its
///   place in the run's order, script, data row and target (empty for none) and repetition, its identity (``CaseIdentity``) and counts,
///   and its whole result as JSON with that JSON's SHA-256, so that a damaged row is run again
///   rather than trusted;
/// - `file_digest`: the SHA-256 of each model, plugin and schema file a case's identity read,
///   with the size, modification time and inode it had then, so that a file is read again only
///   once it changed.
enum JournalSchema {
    /// The migrations in order: version N is reached by running the first N.
    static let migrations: [@Sendable (Database) throws -> Void] = [version1]

    private static func version1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE run (
                id INTEGER PRIMARY KEY,
                started REAL NOT NULL,
                finished REAL,
                folder TEXT NOT NULL,
                arguments TEXT NOT NULL,
                command TEXT NOT NULL,
                targets TEXT NOT NULL,
                repetitions INTEGER NOT NULL,
                jobs INTEGER NOT NULL,
                passed INTEGER,
                failed INTEGER,
                errors INTEGER
            );
            CREATE TABLE case_run (
                run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                file TEXT NOT NULL,
                row TEXT NOT NULL,
                target TEXT NOT NULL,
                repetition INTEGER NOT NULL,
                identity TEXT,
                passed INTEGER NOT NULL,
                failed INTEGER NOT NULL,
                error TEXT,
                seconds REAL NOT NULL,
                finished REAL NOT NULL,
                result TEXT NOT NULL,
                checksum TEXT NOT NULL,
                PRIMARY KEY (run_id, file, row, target, repetition)
            );
            CREATE INDEX run_arguments ON run (folder, arguments);
            CREATE TABLE file_digest (
                path TEXT PRIMARY KEY,
                size INTEGER NOT NULL,
                modified REAL NOT NULL,
                inode INTEGER NOT NULL,
                digest TEXT NOT NULL
            );
            """)
    }
}
