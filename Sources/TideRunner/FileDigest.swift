import Crypto
import Foundation
import Synchronization

/// SHA-256 digests of files and texts, in hexadecimal. A file's digest is worked out once for
/// as long as its size, modification time and inode stay the same — in this process, and across
/// processes where a ``Store`` keeps them (the run journal does) — so that a model of gigabytes
/// is not read again on every run.
public final class FileDigest: Sendable {
    /// What tells a file's contents from before without reading them.
    public struct Stamp: Sendable, Hashable {
        public var path: String
        public var size: Int64
        public var modified: Double
        public var inode: UInt64
    }

    /// Keeps digests between processes.
    public protocol Store: Sendable {
        /// The digest kept for a file with `stamp`, if any.
        func digest(for stamp: Stamp) -> String?
        /// Keeps `digest` for a file with `stamp`.
        func remember(_ digest: String, for stamp: Stamp)
    }

    private let store: (any Store)?
    private let known = Mutex<[Stamp: String]>([:])

    /// Digests kept in this process, and in `store` when there is one.
    public init(store: (any Store)? = nil) {
        self.store = store
    }

    /// The digest of the regular file at `path`; `nil` when there is none or it cannot be read.
    public func of(file path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        #if canImport(Darwin)
        let modified = Double(status.st_mtimespec.tv_sec) + Double(status.st_mtimespec.tv_nsec) / 1e9
        #else
        let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        #endif
        let stamp = Stamp(path: path, size: Int64(status.st_size), modified: modified, inode: UInt64(status.st_ino))
        if let digest = known.withLock({ $0[stamp] }) ?? store?.digest(for: stamp) {
            known.withLock { $0[stamp] = digest }
            return digest
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            // The end of the file reads as nil or as no bytes.
            while let chunk = try handle.read(upToCount: 1 << 22), !chunk.isEmpty { hasher.update(data: chunk) }
        } catch {
            return nil
        }
        let digest = Self.hex(hasher.finalize())
        known.withLock { $0[stamp] = digest }
        store?.remember(digest, for: stamp)
        return digest
    }

    /// The digest of `parts`, each one's length written before it so that no two lists of parts
    /// give the same bytes.
    public static func of(_ parts: [String]) -> String {
        var hasher = SHA256()
        for part in parts {
            let bytes = Array(part.utf8)
            hasher.update(data: Array("\(bytes.count):".utf8))
            hasher.update(data: bytes)
        }
        return hex(hasher.finalize())
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
