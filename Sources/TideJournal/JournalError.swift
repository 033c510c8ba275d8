import Foundation
import GRDB
import TideFiles

/// Why the run journal could not be opened, read or written, said with what to do.
public struct JournalError: Error, Sendable, CustomStringConvertible {
    public let description: String

    /// A problem in the user's terms.
    public init(_ description: String) {
        self.description = description
    }

    /// The error SQLite (or the file system) gave for the journal at `path`.
    init(_ error: any Error, path: URL) {
        let file = path.path
        guard let error = error as? DatabaseError else {
            description = "cannot write the run journal at \(file) (\(FileSystemFailure.reason(error))): make its folder writable, "
                + "or set XDG_DATA_HOME to a writable folder"
            return
        }
        switch error.resultCode {
        case .SQLITE_FULL:
            description = "the disk holding the run journal at \(file) is full: free some space"
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            description = "\(file) is not a Tide run journal, or is damaged; it is left as it is: move it aside "
                + "(mv \(file) \(file).bad) and Tide starts a new one"
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            description = "the run journal at \(file) is locked by another program (waited \(Int(RunJournal.busyTimeout)) s)"
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH, .SQLITE_IOERR:
            description = "cannot write the run journal at \(file) (\(error.message ?? "read-only or no permission")): "
                + "make it writable, or set XDG_DATA_HOME to a writable folder"
        default:
            description = "the run journal at \(file): \(error.message ?? "\(error)")"
        }
    }
}
