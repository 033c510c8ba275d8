import Foundation

/// A small tmpfs mounted for one test, to see what Tide does on a full or read-only file
/// system. Mounting needs root (as the tests run in CI); ``available`` says whether it works.
public final class ScratchFileSystem {
    /// The mount point.
    public let folder: URL

    /// Whether tmpfs can be mounted here (the tests that need it are skipped otherwise).
    public static let available: Bool = {
        guard let probe = try? ScratchFileSystem(bytes: 64 << 10) else { return false }
        probe.unmount()
        return true
    }()

    /// Mounts a tmpfs of `bytes` bytes.
    public init(bytes: Int) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-tmpfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.mount(["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", folder.path])
    }

    /// Makes the file system read-only.
    public func makeReadOnly() throws {
        try Self.mount(["-o", "remount,ro", folder.path])
    }

    /// Fills the file system up, leaving no free block.
    public func fill() {
        let filler = folder.appendingPathComponent(".filler").path
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: filler) else { return }
        let block = Data(count: 4096)
        while (try? handle.write(contentsOf: block)) != nil {}
        try? handle.close()
    }

    /// Unmounts and removes the mount point.
    public func unmount() {
        try? Self.run("/bin/umount", [folder.path])
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { unmount() }

    private static func mount(_ arguments: [String]) throws { try run("/bin/mount", arguments) }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(program) \(arguments) failed"])
        }
    }
}
