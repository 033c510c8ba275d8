import Crypto
import Foundation
import GRDB
import Synchronization
import TideCore
import TideFiles
import TideLog

/// What `tide run` computed, kept to be given again (docs/conversations.md, "What was computed is
/// not computed again"): determined replies, in a SQLite database, `cache.db` in its folder,
/// under the SHA-256 of what decides them, so that a run of an unchanged case gives its replies
/// again instead of generating them and a case where one turn changed generates from that turn
/// on; the results of cases whose identity holds all that decided them, given back whole
/// without making a context; and the model's states after long prompts, in `states/`, so that a prompt that starts as
/// one before loads that start rather than evaluating it (`tide serve --prompt-cache` keeps its
/// sequences' states the same way).
///
/// Bounded: once what it keeps outgrows ``limit``, what was given least recently goes first.
/// Safe under concurrent runs (SQLite's WAL; a write waits for another process's; a state's file
/// is written under another name, then renamed). Each reply and state is kept with its SHA-256:
/// a damaged or truncated one is dropped and computed again, never trusted. A cache that cannot
/// be written (its folder read-only, its disk full) says so once, through the warning it was
/// opened with, and from then on keeps nothing: the run goes on computing.
public final class CacheStore: Sendable {
    /// The database file.
    public let path: URL
    /// The folder of the states' files.
    let states: URL
    /// The most bytes its replies, cases and states may take.
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

    /// Opens the cache in `folder` (creating it if need be), keeping at most `limit` bytes; `nil`,
    /// after saying where and why through `warn`, when it cannot be opened there. Later failures
    /// go to `warn` too, the first only.
    public static func open(folder: URL, limit: Int = defaultLimit, warn: @escaping @Sendable (String) -> Void) -> CacheStore? {
        let path = folder.appendingPathComponent("cache.db")
        do {
            let database = try SQLiteFile.open(path, label: "tide.cache", busyTimeout: busyTimeout, migrations: CacheSchema.migrations)
            let states = folder.appendingPathComponent("states")
            try FileManager.default.createDirectory(at: states, withIntermediateDirectories: true)
            return CacheStore(path: path, states: states, limit: limit, database: database, warn: warn)
        } catch {
            warn(Self.warning(path: folder, error: error))
            return nil
        }
    }

    private init(path: URL, states: URL, limit: Int, database: DatabaseQueue, warn: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.states = states
        self.limit = limit
        self.database = database
        self.warn = warn
    }

    /// What the cache says when it cannot be used: where and why (the caller says what to do).
    private static func warning(path: URL, error: any Error) -> String {
        let reason = (error as? DatabaseError)?.message ?? FileSystemFailure.reason(error)
        return "the cache at \(path.path) cannot be written (\(reason))"
    }

    /// The replies of one scope: those whose model, plugins and settings are described by `scope`.
    public func replies(_ scope: String) -> any ReplyCache {
        ScopedReplyCache(store: self, scope: scope)
    }

    /// The prompt states of one scope: those of the model and setup described by `scope`.
    public func promptStates(_ scope: String) -> any PromptStateStore {
        ScopedPromptStates(store: self, scope: scope)
    }

    /// How many replies, cases and states it keeps, and their bytes.
    public func totals() throws -> (replies: Int, cases: Int, states: Int, bytes: Int) {
        try database.read { db in
            let counts = try ["reply", "case_result", "prompt_state"].map { table in
                try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM \(table)").map { ($0[0] as Int, $0[1] as Int) } ?? (0, 0)
            }
            return (counts[0].0, counts[1].0, counts[2].0, counts.reduce(0) { $0 + $1.1 })
        }
    }

    // MARK: Replies and cases

    /// The tables that keep a value as JSON under a digest.
    enum ValueTable: String, CaseIterable {
        /// Replies (``CachedReply``).
        case reply
        /// Cases' results, kept whole (``caseResult(for:as:)``).
        case caseResult = "case_result"
    }

    /// The reply kept under `key`, marked as given now; `nil` for none, or for one found damaged
    /// (which is dropped).
    func reply(for key: Data) async -> CachedReply? {
        await value(in: .reply, for: key, as: CachedReply.self)
    }

    /// Keeps `reply` under `key`, then makes room.
    func store(_ reply: CachedReply, for key: Data) async {
        await store(reply, in: .reply, for: key)
    }

    /// The result of a case kept under `key` (the digest of all that decided it), decoded as
    /// `type`, marked as given now; `nil` for none, or for one found damaged (which is dropped)
    /// or that does not decode as `type`.
    public func caseResult<Result: Decodable>(for key: Data, as type: Result.Type) async -> Result? {
        await value(in: .caseResult, for: key, as: type)
    }

    /// Keeps `result`, a case's, under `key`, then makes room.
    public func storeCaseResult(_ result: some Encodable, for key: Data) async {
        await store(result, in: .caseResult, for: key)
    }

    /// The value kept in `table` under `key`, marked as given now; a damaged one is dropped.
    private func value<Value: Decodable>(in table: ValueTable, for key: Data, as type: Value.Type) async -> Value? {
        let found: (value: Data, checksum: Data)?
        do {
            found = try await database.read { db in
                try Row.fetchOne(db, sql: "SELECT value, checksum FROM \(table.rawValue) WHERE key = ?", arguments: [key])
                    .map { ($0["value"], $0["checksum"]) }
            }
        } catch {
            return nil
        }
        guard let found else { return nil }
        guard Data(SHA256.hash(data: found.value)) == found.checksum,
              let value = try? JSONDecoder().decode(type, from: found.value) else {
            await write { db in try db.execute(sql: "DELETE FROM \(table.rawValue) WHERE key = ?", arguments: [key]) }
            return nil
        }
        await write { db in
            try db.execute(sql: "UPDATE \(table.rawValue) SET used = ? WHERE key = ?", arguments: [Date().timeIntervalSince1970, key])
        }
        return value
    }

    /// Keeps `value` in `table` under `key`, then makes room.
    private func store(_ value: some Encodable, in table: ValueTable, for key: Data) async {
        guard let value = try? JSONEncoder().encode(value), value.count <= limit else { return }
        let checksum = Data(SHA256.hash(data: value))
        let states = states
        let limit = limit
        await write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO \(table.rawValue) (key, value, checksum, size, used) VALUES (?, ?, ?, ?, ?)",
                           arguments: [key, value, checksum, value.count, Date().timeIntervalSince1970])
            try Self.makeRoom(db, limit: limit, states: states)
        }
    }

    // MARK: Prompt states

    /// The state kept in `scope` that shares the longest start with `tokens`, its file whole,
    /// marked as loaded now; a damaged one is dropped on the way.
    func longestPrefix(of tokens: [Int32], scope: String) -> KeptPromptState? {
        guard let rows = try? database.read({ db in
            try Row.fetchAll(db, sql: "SELECT key, tokens, checksum FROM prompt_state WHERE scope = ?", arguments: [scope])
        }) else { return nil }
        let candidates = rows.map { row -> (key: Data, tokens: [Int32], checksum: Data, shared: Int) in
            let kept = Self.tokens(of: row["tokens"])
            return (row["key"], kept, row["checksum"], zip(kept, tokens).prefix { $0 == $1 }.count)
        }.sorted { $0.shared > $1.shared }
        for candidate in candidates where candidate.shared > 0 {
            let file = file(of: candidate.key)
            guard let state = try? Data(contentsOf: file), Data(SHA256.hash(data: state)) == candidate.checksum else {
                syncWrite { db in try db.execute(sql: "DELETE FROM prompt_state WHERE key = ?", arguments: [candidate.key]) }
                try? FileManager.default.removeItem(at: file)
                continue
            }
            syncWrite { db in
                try db.execute(sql: "UPDATE prompt_state SET used = ? WHERE key = ?", arguments: [Date().timeIntervalSince1970, candidate.key])
            }
            return KeptPromptState(tokens: candidate.tokens, sharedCount: candidate.shared, state: Array(state))
        }
        return nil
    }

    /// Tokens as the `prompt_state` table keeps them: each as four little-endian bytes.
    private static func bytes(of tokens: [Int32]) -> Data {
        var data = Data(capacity: tokens.count * 4)
        for token in tokens { withUnsafeBytes(of: token.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// The tokens `bytes` keeps (``bytes(of:)``).
    private static func tokens(of bytes: Data) -> [Int32] {
        bytes.withUnsafeBytes { raw in
            (0..<raw.count / 4).map { Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
        }
    }

    /// Keeps `state`, a sequence's holding exactly `tokens`, in `scope`, then makes room.
    func keep(_ state: [UInt8], tokens: [Int32], scope: String) {
        guard state.count <= limit, !failed.load(ordering: .relaxed) else { return }
        let key = Self.stateKey(scope: scope, tokens: tokens)
        let data = Data(state)
        let file = file(of: key)
        let partial = file.appendingPathExtension("partial-\(getpid())")
        do {
            try data.write(to: partial)
            try FileManager.default.moveItem(at: partial, to: file)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            // Another process kept the same state first.
            if FileManager.default.fileExists(atPath: file.path) { return }
            return told(error)
        }
        let checksum = Data(SHA256.hash(data: data))
        let (states, limit) = (states, limit)
        syncWrite { db in
            try db.execute(sql: "INSERT OR REPLACE INTO prompt_state (key, scope, tokens, checksum, size, used) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [key, scope, Self.bytes(of: tokens), checksum, data.count, Date().timeIntervalSince1970])
            try Self.makeRoom(db, limit: limit, states: states)
        }
    }

    /// The key of the state holding `tokens` in `scope`.
    static func stateKey(scope: String, tokens: [Int32]) -> Data {
        Data(SHA256.hash(data: Data(scope.utf8) + Data([0]) + bytes(of: tokens)))
    }

    /// The file of the state kept under `key`.
    private func file(of key: Data) -> URL {
        Self.file(of: key, in: states)
    }

    /// The file of the state kept under `key` in the folder `states`.
    private static func file(of key: Data, in states: URL) -> URL {
        states.appendingPathComponent(key.map { String(format: "%02x", $0) }.joined() + ".state")
    }

    // MARK: Writing

    /// Drops what was given least recently, replies, cases and states alike, while the cache is
    /// over `limit`; the dropped states' files go too.
    private static func makeRoom(_ db: Database, limit: Int, states: URL) throws {
        let tables = ValueTable.allCases.map(\.rawValue) + ["prompt_state"]
        var total = try Int.fetchOne(db, sql: "SELECT " + tables.map { "(SELECT COALESCE(SUM(size), 0) FROM \($0))" }.joined(separator: " + ")) ?? 0
        guard total > limit else { return }
        let oldest = try Row.fetchCursor(db, sql: tables.map { "SELECT key, size, '\($0)' AS kind, used FROM \($0)" }
            .joined(separator: " UNION ALL ") + " ORDER BY used")
        var dropped: [(key: Data, table: String)] = []
        while total > limit, let row = try oldest.next() {
            dropped.append((row["key"], row["kind"]))
            total -= row["size"] as Int
        }
        for (key, table) in dropped {
            try db.execute(sql: "DELETE FROM \(table) WHERE key = ?", arguments: [key])
            if table == "prompt_state" {
                try? FileManager.default.removeItem(at: file(of: key, in: states))
            }
        }
    }

    /// Writes in a transaction of its own; the first failure is told, and ends the writing.
    private func write(_ updates: @escaping @Sendable (Database) throws -> Void) async {
        guard !failed.load(ordering: .relaxed) else { return }
        do {
            try await database.write(updates)
        } catch {
            told(error)
        }
    }

    /// ``write(_:)`` for a caller that cannot wait on another task (the engine's thread).
    private func syncWrite(_ updates: (Database) throws -> Void) {
        guard !failed.load(ordering: .relaxed) else { return }
        do {
            try database.write(updates)
        } catch {
            told(error)
        }
    }

    /// Says the first failure to write, and makes the cache read only.
    private func told(_ error: any Error) {
        if !failed.exchange(true, ordering: .relaxed) { warn(Self.warning(path: path.deletingLastPathComponent(), error: error)) }
    }
}
