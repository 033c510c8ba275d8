#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `tide.realpath(path)` and `tide.nfkc(text)`: what a policy on tool calls needs to decide on
/// what a tool will open rather than on the text of its arguments (docs/plugins.md, "The `tide`
/// table"). They read no file's contents and change nothing: `realpath` looks at where names
/// lead (`lstat`, `readlink`), as the system does when a path is opened.
enum PathResolution {
    /// The most symbolic links one resolution follows: Linux's own limit (`ELOOP` past it).
    static let linkLimit = 40
    /// The longest path resolved, in bytes; a longer one is an error.
    static let lengthLimit = 1 << 16
    /// The most names one resolution looks up (`lstat` or `readlink`); past it, an error.
    static let lookupLimit = 1024
    /// Units charged to the instruction budget per `lstat` or `readlink` (about a microsecond,
    /// some hundreds of simple VM instructions).
    static let costPerLookup: Int64 = 512
    /// Units charged per byte normalised by `tide.nfkc`.
    static let costPerNormalisedByte: Int64 = 4

    /// Why a path could not be resolved.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `path` as the system resolves it when it is opened: each existing component in turn, a
    /// symbolic link replaced by its target (a relative target taken from the link's folder),
    /// `..` taken from the folder reached so far. From the first component that does not exist
    /// on (which cannot be a link), the rest is appended with `.` and `..` applied as written;
    /// a `..` that climbs back into folders that exist resumes the lookups there. The path must
    /// be absolute and hold no NUL byte. `lookup` is called before each `lstat`/`readlink`;
    /// returning `false` stops the resolution (the caller's budget ran out). The path is given
    /// with how many names were looked up.
    static func resolve(_ path: [UInt8], lookup: () -> Bool = { true }) -> Result<(path: [UInt8], lookups: Int), Failure> {
        let slash = UInt8(ascii: "/")
        guard path.first == slash else {
            return .failure(Failure(description: "tide.realpath needs an absolute path, not '\(shown(path))'"))
        }
        guard !path.contains(0) else { return .failure(Failure(description: "a path cannot hold a NUL byte")) }
        guard path.count <= lengthLimit else {
            return .failure(Failure(description: "a path of \(path.count) bytes is longer than \(lengthLimit)"))
        }
        var pending = Array(components(of: path).reversed())
        var resolved: [[UInt8]] = []
        // Where the components that do not exist start in `resolved`, if some do not.
        var missingFrom: Int?
        var links = 0
        var lookups = 0
        func looked() -> Failure? {
            lookups += 1
            if lookups > lookupLimit { return Failure(description: "\(shown(path)): more than \(lookupLimit) names to look up") }
            return lookup() ? nil : Failure(description: "stopped")
        }
        while let component = pending.popLast() {
            if component.isEmpty || component == [UInt8(ascii: ".")] { continue }
            if component == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                if !resolved.isEmpty { resolved.removeLast() }
                if let first = missingFrom, resolved.count <= first { missingFrom = nil }
                continue
            }
            if missingFrom != nil {
                resolved.append(component)
                continue
            }
            let candidate = joined(resolved + [component])
            if let failure = looked() { return .failure(failure) }
            var info = stat()
            let status = candidate.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) }
            }
            if status != 0 {
                let error = errno
                guard error == ENOENT || error == ENOTDIR else {
                    return .failure(Failure(description: "\(shown(candidate.dropLast())): \(String(cString: strerror(error)))"))
                }
                missingFrom = resolved.count
                resolved.append(component)
                continue
            }
            guard (info.st_mode & S_IFMT) == S_IFLNK else {
                resolved.append(component)
                continue
            }
            links += 1
            guard links <= linkLimit else {
                return .failure(Failure(description: "\(shown(candidate.dropLast())): more than \(linkLimit) symbolic links"))
            }
            if let failure = looked() { return .failure(failure) }
            var target = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = candidate.withUnsafeBufferPointer { name in
                name.withMemoryRebound(to: CChar.self) { name in
                    target.withUnsafeMutableBufferPointer { buffer in
                        buffer.withMemoryRebound(to: CChar.self) { readlink(name.baseAddress!, $0.baseAddress!, $0.count) }
                    }
                }
            }
            guard length > 0, length <= Int(PATH_MAX) else {
                return .failure(Failure(description: "\(shown(candidate.dropLast())): its link cannot be read"))
            }
            target.removeSubrange(length...)
            if target.first == slash { resolved = [] }
            pending.append(contentsOf: components(of: target).reversed())
            guard pending.count <= lengthLimit else {
                return .failure(Failure(description: "\(shown(candidate.dropLast())): its links lead to a path longer than \(lengthLimit) bytes"))
            }
        }
        return .success((Array(joined(resolved).dropLast()), lookups))
    }

    /// `text` in Unicode's compatibility composition (NFKC): the form a server that normalises
    /// text reads (`‥` as `..`, `／` as `/`, `％２ｅ` as `%2e`).
    static func nfkc(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping
    }

    private static func components(of path: [UInt8]) -> [[UInt8]] {
        path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
    }

    /// `/a/b/c` for `[a, b, c]` (`/` for none), with a NUL at the end for the system's calls.
    private static func joined(_ components: [[UInt8]]) -> [UInt8] {
        var path: [UInt8] = components.isEmpty ? [UInt8(ascii: "/")] : []
        for component in components {
            path.append(UInt8(ascii: "/"))
            path.append(contentsOf: component)
        }
        path.append(0)
        return path
    }

    /// A path for a message: at most 200 bytes of it.
    private static func shown<Bytes: Collection<UInt8>>(_ path: Bytes) -> String {
        let text = String(decoding: path.prefix(200), as: UTF8.self)
        return path.count > 200 ? text + "…" : text
    }
}
