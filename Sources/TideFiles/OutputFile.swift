import Foundation

/// Writing files so that a reader never sees half of one: a temporary file beside the target,
/// then a rename; a failed write leaves nothing behind.
public enum OutputFile {
    /// Writes `bytes` to `path` atomically, creating its folder; errors name `what` was being
    /// written and why it could not be.
    ///
    /// A path that is not a regular file — a device such as `/dev/full`, a pipe, a symbolic
    /// link — is written through in place, never replaced; `/dev/stdout`, `/dev/stderr` and
    /// `/dev/fd/N` are written to the process's own descriptor. A write that fails or falls short
    /// is an error; a folder is refused.
    public static func write(_ bytes: Data, to path: String, what: String) throws(OutputFileError) {
        if let descriptor = openDescriptor(path) {
            fflush(nil)  // what the process printed before comes first
            try write(bytes, to: descriptor, path: path, what: what)
            return
        }
        var link = stat(), target = stat()
        if lstat(path, &link) == 0 {
            if stat(path, &target) == 0, target.st_mode & S_IFMT == S_IFDIR {
                throw OutputFileError("\(path): cannot write \(what): it is a folder; give a file's path")
            }
            if link.st_mode & S_IFMT != S_IFREG {
                try writeInPlace(bytes, to: path, what: what)
                return
            }
        }
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

    /// The descriptor a path names that is one of this process's own: `/dev/stdout` (1),
    /// `/dev/stderr` (2), `/dev/fd/N`, `/proc/self/fd/N`.
    public static func openDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count)).flatMap { fcntl($0, F_GETFD) >= 0 ? $0 : nil }
            }
            return nil
        }
    }

    /// Writes `bytes` to the device, pipe or file a link leads to at `path` (made if missing),
    /// all of them or an error.
    private static func writeInPlace(_ bytes: Data, to path: String, what: String) throws(OutputFileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OutputFileError("\(path): cannot write \(what): \(FileSystemFailure.reason(errno: errno))")
        }
        defer { close(descriptor) }
        try write(bytes, to: descriptor, path: path, what: what)
    }

    /// Writes all of `bytes` to `descriptor`, or says how far it got and why not.
    private static func write(_ bytes: Data, to descriptor: Int32, path: String, what: String) throws(OutputFileError) {
        let (written, failure) = writeAll(bytes, to: descriptor)
        guard let failure else { return }
        let reason = failure == 0 ? "the device took no more" : FileSystemFailure.reason(errno: failure)
        throw OutputFileError("\(path): cannot write \(what): \(reason) (\(written) of \(bytes.count) bytes written)")
    }

    /// Writes all of `bytes` to `descriptor`, again where a write was interrupted or took only
    /// part: the bytes written, and the error number of the write that failed (0 when one wrote
    /// nothing), or `nil` when all were written.
    public static func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> (written: Int, failure: Int32?) {
        var rest = Array(bytes)[...]
        while !rest.isEmpty {
            let count = rest.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return (bytes.count - rest.count, count < 0 ? errno : 0) }
            rest = rest.dropFirst(count)
        }
        return (bytes.count, nil)
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

    /// A failure that says `description`: the path, what was being written, and why not.
    public init(_ description: String) {
        self.description = description
    }
}
