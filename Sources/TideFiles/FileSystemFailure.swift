import Foundation

/// A file-system error in words: what Foundation reports as "Error Domain=NSCocoaErrorDomain
/// Code=642" becomes "no space left on the device".
public enum FileSystemFailure {
    /// Why `error` happened, in a few words (no path: the caller names it).
    public static func reason(_ error: any Error) -> String {
        let original = error
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return reason(errno: Int32(underlying.code))
        }
        if error.domain == NSPOSIXErrorDomain { return reason(errno: Int32(error.code)) }
        if error.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: error.code) {
            case .fileWriteOutOfSpace: return reason(errno: ENOSPC)
            case .fileWriteVolumeReadOnly: return reason(errno: EROFS)
            case .fileWriteNoPermission, .fileReadNoPermission: return reason(errno: EACCES)
            case .fileNoSuchFile, .fileReadNoSuchFile: return reason(errno: ENOENT)
            case .fileWriteFileExists: return reason(errno: EEXIST)
            case .fileWriteUnknown:
                let path = error.userInfo[NSFilePathErrorKey] as? String ?? (error.userInfo[NSURLErrorKey] as? URL)?.path
                if let path, let obstacle = obstacle(making: path) { return obstacle }
            default: break
            }
        }
        // Foundation's own errors read best as Foundation words them; Tide's own, as they describe themselves.
        guard error.domain != NSCocoaErrorDomain, error.domain != NSPOSIXErrorDomain else { return error.localizedDescription }
        return String(describing: original)
    }

    /// Why a file or folder cannot be made at `path`, as the nearest part of it that exists
    /// says: a file where a folder must be, or a folder that cannot be written; `nil` when
    /// neither.
    private static func obstacle(making path: String) -> String? {
        var url = URL(fileURLWithPath: path)
        while url.path != "/" {
            url.deleteLastPathComponent()
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            guard isFolder.boolValue else { return reason(errno: ENOTDIR) }
            return FileManager.default.isWritableFile(atPath: url.path) ? nil : reason(errno: EACCES)
        }
        return nil
    }

    /// An `errno` value in words, lower-cased as part of a sentence.
    public static func reason(errno code: Int32) -> String {
        switch code {
        case ENOSPC: "no space left on the device"
        case EROFS: "the file system is read-only"
        case EACCES, EPERM: "permission denied"
        case ENOENT: "no such file or folder"
        case ENOTDIR: "a part of the path is a file, not a folder"
        case EISDIR: "it is a folder"
        case EDQUOT: "the disk quota is used up"
        default: String(cString: strerror(code)).lowercased()
        }
    }

    /// Whether `error` is the device running out of space (or of quota).
    public static func isOutOfSpace(_ error: any Error) -> Bool {
        let error = error as NSError
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        let codes = [error, underlying].compactMap { $0 }.filter { $0.domain == NSPOSIXErrorDomain }.map { Int32($0.code) }
        return codes.contains(ENOSPC) || codes.contains(EDQUOT)
            || (error.domain == NSCocoaErrorDomain && error.code == CocoaError.Code.fileWriteOutOfSpace.rawValue)
    }

    /// Bytes free for an unprivileged writer on the file system holding `path` (or its nearest
    /// existing parent), if it can be told: `nil` for one that counts no blocks (`/proc`).
    public static func availableBytes(at path: URL) -> Int64? {
        var folder = path
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        var status = statvfs()
        // A file system that counts no blocks (/proc, /sys) tells nothing of its space.
        guard statvfs(folder.path, &status) == 0, status.f_blocks > 0 else { return nil }
        let (bytes, overflow) = Int64(clamping: status.f_bavail).multipliedReportingOverflow(by: Int64(clamping: status.f_frsize))
        return overflow ? .max : bytes
    }
}
