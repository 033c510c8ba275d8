import Crypto
import Foundation
import GRDB
import Synchronization
import TideCore
import TideLog

/// The reply cache of `tide run` (`--cache`): determined replies kept in a SQLite database,
/// `cache.db` in its folder, under the SHA-256 of what decides them, so that a run of an
/// unchanged case gives its replies again instead of generating them, and a case where one turn
/// changed generates from that turn on (docs/conversations.md, "What was computed is not
/// computed again").
///
/// Bounded: once its replies outgrow ``limit``, those given least recently go. Safe under
/// concurrent runs (SQLite's WAL; a write waits for another process's). Each reply is kept with
/// the SHA-256 of its JSON: a damaged or truncated one is dropped and generated again, never
/// trusted. A cache that cannot be written (its folder read-only, its disk full) says so once,
/// through the warning it was opened with, and from then on keeps nothing: the run goes on
/// generating.
public final class ReplyStore: Sendable {
    /// The database file.
    public let path: URL
    /// The most bytes its replies may take.
    public let limit: Int
    private let database: DatabaseQueue
    private let warn: @Sendable (String) -> Void
    /// Set once a write failed: the cache is then read only, and has said so.
    private let failed = Atomic<Bool>(false)

    /// The size a cache keeps when none is given: 1 GiB.
    public static let defaultLimit = 1 << 30

    /// How long a write waits for another process's (two runs caching at once).
    static let busyTimeout: TimeInterval = 10

    /// Where the cache lives: `$TIDE_CACHE_DIR`, else `tide/replies` in `XDG_CACHE_HOME` (by
    /// default `~/.cache`), beside the models.
    public static func standardFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let folder = environment["TIDE_CACHE_DIR"], !folder.isEmpty { return URL(fileURLWithPath: folder) }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return cache.appendingPathComponent("tide/replies")
    }

    /// Opens the cache in `folder` (creating it if need be), keeping at most `limit` bytes of
    /// replies; `nil`, after saying why through `warn`, when it cannot be opened there. Later
    /// failures go to `warn` too, the first only.
    public static func open(folder: URL, limit: Int = defaultLimit, warn: @escaping @Sendable (String) -> Void) -> ReplyStore? {
        let path = folder.appendingPathComponent("cache.db")
        do {
            let database = try SQLiteFile.open(path, label: "tide.cache", busyTimeout: busyTimeout, migrations: CacheSchema.migrations)
            return ReplyStore(path: path, limit: limit, database: database, warn: warn)
        } catch {
            warn(Self.warning(path: path, error: error))
            return nil
        }
    }

    private init(path: URL, limit: Int, database: DatabaseQueue, warn: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.limit = limit
        self.database = database
        self.warn = warn
    }

    /// What the cache says when it cannot be used: the file, why, and what to do.
    private static func warning(path: URL, error: any Error) -> String {
        let reason = (error as? DatabaseError)?.message ?? "\(error)"
        return "warning: the reply cache at \(path.path) cannot be written (\(reason)); this run generates every reply. "
            + "Make the folder writable, set TIDE_CACHE_DIR to another, or run with --no-cache"
    }

    /// The replies of one scope: those whose model, plugins and settings are described by `scope`.
    public func scoped(_ scope: String) -> any ReplyCache {
        ScopedReplyCache(store: self, scope: scope)
    }

    /// How many replies it keeps, and their bytes.
    public func totals() throws -> (replies: Int, bytes: Int) {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM reply")
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    /// The reply kept under `key`, marked as given now; `nil` for none, or for one found damaged
    /// (which is dropped).
    func reply(for key: Data) async -> CachedReply? {
        let found: (value: Data, checksum: Data)?
        do {
            found = try await database.read { db in
                try Row.fetchOne(db, sql: "SELECT value, checksum FROM reply WHERE key = ?", arguments: [key])
                    .map { ($0["value"], $0["checksum"]) }
            }
        } catch {
            return nil
        }
        guard let found else { return nil }
        guard Data(SHA256.hash(data: found.value)) == found.checksum,
              let reply = try? JSONDecoder().decode(CachedReply.self, from: found.value) else {
            await write { db in try db.execute(sql: "DELETE FROM reply WHERE key = ?", arguments: [key]) }
            return nil
        }
        await write { db in
            try db.execute(sql: "UPDATE reply SET used = ? WHERE key = ?", arguments: [Date().timeIntervalSince1970, key])
        }
        return reply
    }

    /// Keeps `reply` under `key`, then drops the replies given least recently while the cache is
    /// over its size.
    func store(_ reply: CachedReply, for key: Data) async {
        guard let value = try? JSONEncoder().encode(reply), value.count <= limit else { return }
        let checksum = Data(SHA256.hash(data: value))
        let limit = limit
        await write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO reply (key, value, checksum, size, used) VALUES (?, ?, ?, ?, ?)",
                           arguments: [key, value, checksum, value.count, Date().timeIntervalSince1970])
            var total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM reply") ?? 0
            guard total > limit else { return }
            let oldest = try Row.fetchCursor(db, sql: "SELECT key, size FROM reply ORDER BY used")
            var dropped: [Data] = []
            while total > limit, let row = try oldest.next() {
                dropped.append(row["key"])
                total -= row["size"] as Int
            }
            for key in dropped { try db.execute(sql: "DELETE FROM reply WHERE key = ?", arguments: [key]) }
        }
    }

    /// Writes in a transaction of its own; the first failure is told, and ends the writing.
    private func write(_ updates: @escaping @Sendable (Database) throws -> Void) async {
        guard !failed.load(ordering: .relaxed) else { return }
        do {
            try await database.write(updates)
        } catch {
            if !failed.exchange(true, ordering: .relaxed) { warn(Self.warning(path: path, error: error)) }
        }
    }
}
