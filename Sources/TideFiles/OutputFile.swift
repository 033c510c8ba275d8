import Foundation

/// Writing files so that a reader never sees half of one: a temporary file beside the target,
/// then a rename; a failed write leaves nothing behind.
public enum OutputFile {
    /// Writes `bytes` to `path` atomically, creating its folder; errors name `what` was being
    /// written and why it could not be.
    public static func write(_ bytes: Data, to path: String, what: String) throws(OutputFileError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        try prepareFolder(url.deletingLastPathComponent().path)
        do {
            try bytes.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw OutputFileError("\(path): cannot write \(what): \(FileSystemFailure.reason(error))")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = FileSystemFailure.reason(errno: errno)
            try? FileManager.default.removeItem(at: temporary)
            throw OutputFileError("\(path): cannot write \(what): \(reason)")
        }
    }

    /// Creates `folder` if needed and checks that files can be made in it, so that a command
    /// that writes files fails before it does its work, not after.
    public static func prepareFolder(_ folder: String) throws(OutputFileError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw OutputFileError("\(folder): cannot create the folder: \(FileSystemFailure.reason(error))")
        }
        guard access(folder, W_OK) == 0 else {
            throw OutputFileError("\(folder): cannot write files in this folder: \(FileSystemFailure.reason(errno: errno))")
        }
        if let free = FileSystemFailure.availableBytes(at: URL(fileURLWithPath: folder)), free < 64 << 10 {
            throw OutputFileError("\(folder): cannot write files in this folder: \(FileSystemFailure.reason(errno: ENOSPC)) "
                + "(\(free) bytes free)")
        }
    }
}

/// A file that could not be written: which, and why.
public struct OutputFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
