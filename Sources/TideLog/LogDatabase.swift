import Foundation
import GRDB
import Synchronization

/// The conversation log's database. It is opened (created and migrated if need be) on first
/// use, and written on a queue of its own: neither opening nor writing ever holds up a reply.
/// A locked, read-only, full or corrupt database is said once, through `warn`, and generation
/// goes on; a file that is not a log is never overwritten.
///
/// ```swift
/// let database = LogDatabase(path: LogLocation().database) { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
/// session.recorder = ConversationLog(database: database, source: .generate, model: "smollm2-135m-instruct")
/// … // replies
/// database.flush()
/// ```
public final class LogDatabase: Sendable {
    /// The database file.
    public let path: URL
    private let queue = DispatchQueue(label: "tide.log")
    private let state = Mutex(State())
    private let warn: @Sendable (String) -> Void

    private struct State {
        var database: DatabaseQueue?
        /// Why it cannot be opened, unless trying again may work; nothing more is tried after it.
        var unusable: LogError?
        var warned = false
    }

    /// How long a write waits for another process's to end (SQLite's busy timeout), in seconds.
    static let busyTimeout: TimeInterval = 2

    /// The log at `path`; `warn` is told the first failure.
    public init(path: URL, warn: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.warn = warn
    }

    /// Runs `work` in one transaction, after every write enqueued before it; returns at once.
    func enqueue(_ work: @escaping @Sendable (Database) throws -> Void) {
        queue.async { [self] in
            do {
                try open().write(work)
            } catch {
                report(error)
            }
        }
    }

    /// Waits until every write enqueued so far is made (or has failed): before the process ends.
    public func flush() {
        queue.sync {}
    }

    /// Reads (or changes) the log for a command, after the writes enqueued before; a database
    /// that cannot be opened is a ``LogError``.
    public func access<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.sync {
            let database: DatabaseQueue
            do {
                database = try open()
            } catch {
                throw error as? LogError ?? LogError(error, path: path)
            }
            do {
                return try database.write(body)
            } catch let error as LogError {
                throw error
            } catch {
                throw LogError(error, path: path)
            }
        }
    }

    /// The open database, opened now if need be. Runs on the queue. A new log that another
    /// process is creating at the same moment may be busy for an instant without SQLite waiting
    /// (changing the journal mode does not wait): opening is tried again a few times first.
    private func open() throws -> DatabaseQueue {
        if let unusable = state.withLock({ $0.unusable }) { throw unusable }
        if let database = state.withLock({ $0.database }) { return database }
        var attempt = 0
        while true {
            do {
                let database = try connect()
                state.withLock { $0.database = database }
                return database
            } catch {
                let failure = LogError(error, path: path)
                attempt += 1
                if failure.isTransient, attempt < 20 {
                    Thread.sleep(forTimeInterval: 0.05)
                    continue
                }
                if !failure.isTransient { state.withLock { $0.unusable = failure } }
                throw failure
            }
        }
    }

    /// A connection to the log, created and brought to the newest schema if need be.
    private func connect() throws -> DatabaseQueue {
        try SQLiteFile.open(path, label: "tide.log", busyTimeout: Self.busyTimeout, migrations: LogSchema.migrations)
    }

    /// Says the first failure; later ones go unsaid.
    private func report(_ error: any Error) {
        let first = state.withLock { state in
            defer { state.warned = true }
            return !state.warned
        }
        guard first else { return }
        let reason = (error as? LogError ?? LogError(error, path: path)).description
        warn("the conversation log is not being written: \(reason); generation goes on (--no-log or tide logs off stops logging)")
    }
}
