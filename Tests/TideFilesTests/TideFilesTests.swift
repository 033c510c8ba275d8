import Foundation
import Testing
import TideFiles

@Suite struct InputFileTests {
    func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func kindsArePhrasedAndOnlyRegularFilesAreRead() throws {
        let folder = try scratch()
        let fifo = folder.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(InputFile.kind(of: fifo) == .fifo)
        #expect(InputFile.kind(of: "/dev/null") == .characterDevice)
        #expect(InputFile.kind(of: folder.path) == .directory)
        #expect(InputFile.kind(of: folder.appendingPathComponent("none").path) == .missing)
        #expect(throws: InputFileError(path: fifo, what: "script", reason: "it is a named pipe (FIFO), not a regular file; "
                                         + "Tide reads a script from a regular file (save it to one first)")) {
            _ = try InputFile.contents(of: fifo, what: "script", limit: 100)
        }
        #expect(throws: InputFileError(path: folder.path, what: "plugin", reason: "it is a folder; give a plugin file inside it")) {
            _ = try InputFile.contents(of: folder.path, what: "plugin", limit: 100)
        }
    }

    @Test func aFileOverTheLimitIsRefusedAndAByteOrderMarkDropped() throws {
        let file = try scratch().appendingPathComponent("text")
        try Data([0xEF, 0xBB, 0xBF] + Array("hello".utf8)).write(to: file)
        #expect(try InputFile.contents(of: file.path, what: "script", limit: 8) == Array("hello".utf8))
        #expect(throws: InputFileError(path: file.path, what: "script",
                                       reason: "it is larger than 4 bytes, the most Tide reads for a script")) {
            _ = try InputFile.contents(of: file.path, what: "script", limit: 4)
        }
        #expect("\(ByteCount(16 << 20)) \(ByteCount(1536)) \(ByteCount(3))" == "16 MiB 2 KiB 3 bytes")
    }
}

@Suite struct FileSystemFailureTests {
    struct OwnError: Error, CustomStringConvertible { var description: String { "a reason of our own" } }

    @Test func foundationErrorsInWords() {
        #expect(FileSystemFailure.reason(CocoaError(.fileWriteOutOfSpace)) == "no space left on the device")
        #expect(FileSystemFailure.reason(CocoaError(.fileWriteVolumeReadOnly)) == "the file system is read-only")
        #expect(FileSystemFailure.reason(POSIXError(.EACCES)) == "permission denied")
        let wrapped = NSError(domain: NSCocoaErrorDomain, code: 512,
                              userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))])
        #expect(FileSystemFailure.reason(wrapped) == "no space left on the device")
        #expect(FileSystemFailure.isOutOfSpace(wrapped))
        #expect(FileSystemFailure.reason(OwnError()) == "a reason of our own")
        #expect(!FileSystemFailure.reason(CocoaError(.fileReadCorruptFile)).contains("NSCocoaErrorDomain"))
    }

    /// Foundation says only "error 512" for a folder that cannot be made under a file; the path says why.
    @Test func aFolderUnderAFileIsSaidToBeUnderAFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tide-plain-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try FileManager.default.createDirectory(at: file.appendingPathComponent("cache/states"), withIntermediateDirectories: true)
            Issue.record("a folder was made under a file")
        } catch {
            #expect(FileSystemFailure.reason(error) == "a part of the path is a file, not a folder")
        }
    }
}

/// Output files: a device, a link or a folder where a report or transcript goes.
@Suite struct OutputFileTests {
    func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "no /dev/full here"))
    func aFullDeviceIsAnErrorAndStaysADevice() throws {
        do {
            try OutputFile.write(Data("<report/>".utf8), to: "/dev/full", what: "the JUnit report")
            Issue.record("a write to /dev/full went through")
        } catch {
            #expect(error.description == "/dev/full: cannot write the JUnit report: no space left on the device (0 of 9 bytes written)")
        }
        var status = stat()
        #expect(lstat("/dev/full", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "the device is never replaced")
    }

    @Test func linksAreWrittenThroughAndFoldersRefused() throws {
        let folder = try scratch()
        let target = folder.appendingPathComponent("real.xml")
        let link = folder.appendingPathComponent("link.xml")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        try OutputFile.write(Data("first".utf8), to: link.path, what: "the report")
        try OutputFile.write(Data("second".utf8), to: link.path, what: "the report")
        #expect(try String(contentsOf: target, encoding: .utf8) == "second", "a dangling link's file is made, then rewritten")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path, "the link stays a link")
        do {
            try OutputFile.write(Data("x".utf8), to: folder.path, what: "the report")
            Issue.record("a folder was written over")
        } catch {
            #expect(error.description == "\(folder.path): cannot write the report: it is a folder; give a file's path")
        }
        try OutputFile.write(Data("plain".utf8), to: target.path, what: "the report")
        #expect(try String(contentsOf: target, encoding: .utf8) == "plain")
    }
}
