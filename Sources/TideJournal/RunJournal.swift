import Foundation
import GRDB
import TideLog
import TideRunner

/// The journal of `tide run`: every run and every run of a case in it, written as each case
/// finishes, durably (SQLite in WAL mode, one transaction per case), so that a run stopped at
/// any moment loses at most the cases in flight and `tide run --resume` replays only what is
/// missing; `tide runs` reads it back (docs/conversations.md, "Runs that last").
public final class RunJournal: FileDigest.Store {
    /// The database file.
    public let path: URL
    private let database: DatabaseQueue

    /// How long a write waits for another process's (two runs journaling at once).
    static let busyTimeout: TimeInterval = 10

    /// Where the journal lives: `tide/runs.db` in `XDG_DATA_HOME` (by default `~/.local/share`),
    /// beside the conversation log.
    public static func standardLocation(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return data.appendingPathComponent("tide/runs.db")
    }

    /// Opens the journal at `path`, creating it (and its folder) if need be.
    public init(path: URL) throws(JournalError) {
        self.path = path
        do {
            database = try SQLiteFile.open(path, label: "tide.runs", busyTimeout: Self.busyTimeout, migrations: JournalSchema.migrations)
        } catch {
            throw JournalError(error, path: path)
        }
    }

    /// Starts a run of `jobs` runs of cases, in `folder` with `arguments`.
    public func begin(folder: String, arguments: [String], command: String, targets: [String], repetitions: Int,
                      jobs: Int) throws(JournalError) -> JournaledRun {
        let started = Date()
        let id = try write { db in
            try db.execute(sql: """
                INSERT INTO run (started, folder, arguments, command, targets, repetitions, jobs) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [started.timeIntervalSince1970, folder, Self.json(arguments), command, Self.json(targets),
                                 repetitions, jobs])
            return db.lastInsertedRowID
        }
        return JournaledRun(id: id, started: started, folder: folder, arguments: arguments, command: command, targets: targets,
                            repetitions: repetitions, jobs: jobs, kept: 0)
    }

    /// Keeps one run of a case, in a transaction of its own; a case kept before under the same
    /// key is replaced.
    public func record(_ result: ScriptResult, as key: JobKey, position: Int, in run: Int64) throws(JournalError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(result)
        } catch {
            throw JournalError("cannot journal \(key): \(error)")
        }
        let text = String(decoding: data, as: UTF8.self)
        try write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO case_run (run_id, position, file, row, target, repetition, identity, passed, failed, error,
                                                 seconds, finished, result, checksum)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [run, position, key.file, key.row ?? "", key.target ?? "", key.repetition,
                                 result.identity.map { Self.json($0) }, result.passed, result.failed, result.failure,
                                 result.seconds, Date().timeIntervalSince1970, text, FileDigest.of([text])])
        }
    }

    /// Marks `run` finished (it ran to its end) with its counts.
    public func finish(_ run: Int64, passed: Int, failed: Int, errors: Int) throws(JournalError) {
        try write { db in
            try db.execute(sql: "UPDATE run SET finished = ?, passed = ?, failed = ?, errors = ? WHERE id = ?",
                           arguments: [Date().timeIntervalSince1970, passed, failed, errors, run])
        }
    }

    /// Removes the runs numbered `ids` and the cases they kept; the numbers of those it had.
    public func remove(_ ids: [Int64]) throws(JournalError) -> [Int64] {
        try write { db in
            var removed: [Int64] = []
            for id in ids {
                try db.execute(sql: "DELETE FROM case_run WHERE run_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM run WHERE id = ?", arguments: [id])
                if db.changesCount > 0 { removed.append(id) }
            }
            return removed
        }
    }

    /// The numbers of the runs past the newest `count`.
    public func runs(olderThanNewest count: Int) throws(JournalError) -> [Int64] {
        try read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM run ORDER BY id DESC LIMIT -1 OFFSET ?", arguments: [count])
        }
    }

    /// The run numbered `id`, if the journal has it.
    public func run(_ id: Int64) throws(JournalError) -> JournaledRun? {
        try runs(where: "run.id = ?", arguments: [id]).first
    }

    /// The newest unfinished run in `folder` with `arguments`, if there is one.
    public func lastUnfinishedRun(folder: String, arguments: [String]) throws(JournalError) -> JournaledRun? {
        try runs(where: "run.finished IS NULL AND run.folder = ? AND run.arguments = ?", arguments: [folder, Self.json(arguments)])
            .first
    }

    /// The newest runs first, at most `limit`.
    public func runs(limit: Int = 50) throws(JournalError) -> [JournaledRun] {
        try runs(where: "1", arguments: [], limit: limit)
    }

    /// The runs of cases `run` kept, in the run's order. A row whose result does not match its
    /// checksum or does not decode is left out (it is run again on resuming) and named in
    /// `damaged`.
    public func keptCases(of run: Int64) throws(JournalError) -> (cases: [KeptCase], damaged: [JobKey]) {
        let rows = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT position, file, row, target, repetition, result, checksum FROM case_run WHERE run_id = ? ORDER BY position
                """, arguments: [run])
        }
        var cases: [KeptCase] = []
        var damaged: [JobKey] = []
        let decoder = JSONDecoder()
        for row in rows {
            let rowName: String = row["row"]
            let target: String = row["target"]
            let key = JobKey(file: row["file"], row: rowName.isEmpty ? nil : rowName, target: target.isEmpty ? nil : target,
                             repetition: row["repetition"])
            let text: String = row["result"]
            guard FileDigest.of([text]) == row["checksum"] as String,
                  let result = try? decoder.decode(ScriptResult.self, from: Data(text.utf8)) else {
                damaged.append(key)
                continue
            }
            cases.append(KeptCase(position: row["position"], key: key, result: result))
        }
        return (cases, damaged)
    }

    /// The runs of cases `run` kept, grouped by case and target (a group holds a case's
    /// repetitions), in the run's order; the damaged ones named apart (``keptCases(of:)``).
    public func keptGroups(of run: JournaledRun) throws(JournalError) -> (groups: [[ScriptResult]], damaged: [JobKey]) {
        let (cases, damaged) = try keptCases(of: run.id)
        var groups: [[ScriptResult]] = []
        var last: Int?
        for kept in cases {
            let group = kept.position / max(run.repetitions, 1)
            if group == last { groups[groups.count - 1].append(kept.result) } else { groups.append([kept.result]) }
            last = group
        }
        return (groups, damaged)
    }

    private func runs(where condition: String, arguments: StatementArguments, limit: Int = 1_000_000) throws(JournalError) -> [JournaledRun] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT run.*, (SELECT count(*) FROM case_run WHERE run_id = run.id) AS kept FROM run
                WHERE \(condition) ORDER BY run.id DESC LIMIT \(limit)
                """, arguments: arguments).map { row in
                let finished: Double? = row["finished"]
                let arguments: String = row["arguments"]
                let targets: String = row["targets"]
                return JournaledRun(
                    id: row["id"], started: Date(timeIntervalSince1970: row["started"]),
                    finished: finished.map(Date.init(timeIntervalSince1970:)), folder: row["folder"],
                    arguments: Self.strings(arguments), command: row["command"], targets: Self.strings(targets),
                    repetitions: row["repetitions"], jobs: row["jobs"], kept: row["kept"], passed: row["passed"], failed: row["failed"],
                    errors: row["errors"])
            }
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(JournalError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw JournalError(error, path: path)
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(JournalError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw JournalError(error, path: path)
        }
    }

    /// The digest kept for a file with `stamp`; `nil` when it changed since, or on any error
    /// (the file is then read again).
    public func digest(for stamp: FileDigest.Stamp) -> String? {
        try? read { db in
            try String.fetchOne(db, sql: "SELECT digest FROM file_digest WHERE path = ? AND size = ? AND modified = ? AND inode = ?",
                                arguments: [stamp.path, stamp.size, stamp.modified, Int64(bitPattern: stamp.inode)])
        }
    }

    /// Keeps a file's digest; one that cannot be kept is worked out again next time.
    public func remember(_ digest: String, for stamp: FileDigest.Stamp) {
        try? write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO file_digest (path, size, modified, inode, digest) VALUES (?, ?, ?, ?, ?)",
                           arguments: [stamp.path, stamp.size, stamp.modified, Int64(bitPattern: stamp.inode), digest])
        }
    }

    /// `value` as compact JSON with sorted keys: the same text for the same value.
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    private static func strings(_ json: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
    }
}
