import Foundation

/// A file Tide reads whole (a script, a plugin, a model's header): checked to be a regular file
/// of bounded size before it is opened, so that a named pipe, a device or a folder given by
/// mistake gets an error that says what the path is, instead of a hang or a permission error.
public enum InputFile {
    /// What kind of thing a path names, as `stat` sees it (links followed).
    public enum Kind: Sendable, Hashable {
        case missing, inaccessible, regular, directory, fifo, characterDevice, blockDevice, socket, other

        /// The kind in words, with an article ("a named pipe (FIFO)").
        public var phrase: String {
            switch self {
            case .missing: "missing"
            case .inaccessible: "out of reach (permission denied on the way to it)"
            case .regular: "a regular file"
            case .directory: "a folder"
            case .fifo: "a named pipe (FIFO)"
            case .characterDevice: "a character device"
            case .blockDevice: "a block device"
            case .socket: "a socket"
            case .other: "not a regular file"
            }
        }
    }

    /// What `path` names.
    public static func kind(of path: String) -> Kind {
        var status = stat()
        guard stat(path, &status) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .inaccessible }
        return kind(of: status)
    }

    private static func kind(of status: stat) -> Kind {
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFSOCK: return .socket
        default: return .other
        }
    }

    /// Checks that `path` is a regular file; `what` names it in the error ("script", "model").
    public static func requireRegular(_ path: String, what: String) throws(InputFileError) {
        let kind = kind(of: path)
        guard kind == .regular else { throw InputFileError(path: path, what: what, kind: kind) }
    }

    /// The bytes of the regular file at `path`, at most `limit` of them (a larger file is an
    /// error, not a truncated read). A UTF-8 byte-order mark at the start is dropped.
    public static func contents(of path: String, what: String, limit: Int) throws(InputFileError) -> [UInt8] {
        try requireRegular(path, what: what)
        // Opened without blocking (a FIFO put in its place since the check would wait for a
        // writer), then checked again on the descriptor itself.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == EACCES ? "permission denied (check the file's permissions)" : String(cString: strerror(errno))
            throw InputFileError(path: path, what: what, reason: reason)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, kind(of: status) != .regular {
            throw InputFileError(path: path, what: what, kind: kind(of: status))
        }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while data.count <= limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw InputFileError(path: path, what: what, reason: "it cannot be read: \(String(cString: strerror(errno)))")
            }
            data += chunk[0..<count]
        }
        guard data.count <= limit else {
            throw InputFileError(path: path, what: what, reason: "it is larger than \(ByteCount(limit)), the most Tide reads for a \(what)")
        }
        return withoutByteOrderMark(data)
    }

    /// `bytes` without a leading UTF-8 byte-order mark (EF BB BF), which some editors write.
    private static func withoutByteOrderMark(_ bytes: [UInt8]) -> [UInt8] {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }
}

/// A file that cannot be read as what it was given for.
public struct InputFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path as given.
    public let path: String
    /// What it was given as ("script", "model").
    public let what: String
    /// Why it cannot be used.
    public let reason: String

    /// An error with its reason in words.
    public init(path: String, what: String, reason: String) {
        self.path = path
        self.what = what
        self.reason = reason
    }

    /// An error for a path that is not a regular file.
    init(path: String, what: String, kind: InputFile.Kind) {
        let reason = switch kind {
        case .missing: "no such file"
        case .inaccessible: "permission denied on the way to it (check the folders' permissions)"
        case .directory: "it is a folder; give a \(what) file inside it"
        default: "it is \(kind.phrase), not a regular file; Tide reads a \(what) from a regular file (save it to one first)"
        }
        self.init(path: path, what: what, reason: reason)
    }

    public var description: String { "\(path): cannot read the \(what): \(reason)" }
}
