import Foundation
import GRDB
import TideFiles

/// Why the conversation log could not be opened or written, said with what to do.
public struct LogError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let description: String
    /// Whether trying again later may work (the database was locked).
    let isTransient: Bool
    /// What SQLite said, alone.
    let detail: String

    /// The error SQLite (or the file system) gave for the log at `path`, in the user's terms.
    init(_ error: any Error, path: URL) {
        let file = path.path
        guard let error = error as? DatabaseError else {
            // The file system's refusal (its folder could not be made: read-only, no permission).
            let reason = FileSystemFailure.reason(error)
            description = error is CocoaError || (error as NSError).domain == NSPOSIXErrorDomain
                ? "cannot write the log at \(file) (\(reason)): make it writable, or set XDG_DATA_HOME to a writable folder"
                : "cannot use the log at \(file): \(reason)"
            isTransient = false
            detail = reason
            return
        }
        isTransient = error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        detail = error.message ?? "\(error)"
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            description = "\(file) is not a Tide log, or is damaged; it is left as it is: move it aside "
                + "(mv \(file) \(file).bad) and Tide starts a new log"
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            description = "the log at \(file) is locked by another program (waited \(Int(LogDatabase.busyTimeout)) s)"
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            description = "cannot write the log at \(file) (\(error.message ?? "read-only or no permission")): "
                + "make it writable, or set XDG_DATA_HOME to a writable folder"
        case .SQLITE_FULL:
            description = "the disk holding the log at \(file) is full: free some space"
        default:
            description = "cannot use the log at \(file): \(error.message ?? "\(error)")"
        }
    }

    init(_ description: String) {
        self.description = description
        isTransient = false
        detail = description
    }
}
