import Foundation
import GRDB

/// A SQLite database file as Tide keeps them (the conversation log, the run journal): its
/// folder made, WAL with `synchronous = NORMAL` (a commit survives the process being killed
/// without a sync of its own; a power cut costs at most the last commits), a wait for other
/// processes' writes, and its tables brought up to date by versioned migrations, the version
/// kept in SQLite's `user_version`.
public enum SQLiteFile {
    /// Opens (creating it if need be) the database at `path`, named `label` in SQLite's traces,
    /// waiting up to `busyTimeout` seconds for another process's write; version N of its schema
    /// is reached by running the first N `migrations`.
    public static func open(_ path: URL, label: String, busyTimeout: TimeInterval,
                            migrations: [@Sendable (Database) throws -> Void]) throws -> DatabaseQueue {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = label
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let database = try DatabaseQueue(path: path.path, configuration: configuration)
        // A read first, cheaper than the write lock, for a database already current.
        let current = try database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 } == migrations.count
        if !current { try migrate(database, migrations) }
        return database
    }

    /// Brings the database up to the newest version. The check and the migrations run in one
    /// transaction that takes the write lock first, so that two processes opening a new database
    /// at once do not both migrate it: the second waits, then finds it current.
    static func migrate(_ database: DatabaseQueue, _ migrations: [@Sendable (Database) throws -> Void]) throws {
        try database.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                for migration in migrations.dropFirst(version) { try migration(db) }
                if version < migrations.count { try db.execute(sql: "PRAGMA user_version = \(migrations.count)") }
                return .commit
            }
        }
    }
}
