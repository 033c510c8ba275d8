import Foundation
import Synchronization
import TideFiles

/// Facts about the terminal and small helpers for writing to it.
enum Terminal {
    /// Whether standard error is a terminal (progress bars go there).
    static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether standard output is a terminal (transcripts stream there).
    static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }

    /// The error number of the first write to standard output that failed (a full disk, a
    /// closed pipe); later writes are skipped, and ``finishOutput()`` reports it.
    private static let outputFailure = Mutex<Int32?>(nil)

    /// Writes text to standard output at once (replies stream token by token), after what
    /// `print` has buffered, so the two keep their order.
    static func write(_ text: String) {
        guard outputFailure.withLock({ $0 == nil }) else { return }
        if fflush(nil) != 0 {
            let code = errno
            outputFailure.withLock { $0 = $0 ?? code }
            return
        }
        if let failure = OutputFile.writeAll(text.utf8, to: STDOUT_FILENO).failure {
            outputFailure.withLock { $0 = $0 ?? (failure == 0 ? EIO : failure) }
        }
    }

    /// Flushes what `print` buffered, and throws if any of standard output could not be written
    /// (`tide generate > /dev/full`). A reader that closed the pipe early (`| head`) ends the
    /// process quietly with status 141, as SIGPIPE would.
    static func finishOutput() throws {
        if fflush(nil) != 0 {
            let code = errno
            outputFailure.withLock { $0 = $0 ?? code }
        }
        guard let code = outputFailure.withLock({ $0 }) else { return }
        if code == EPIPE { Foundation.exit(141) }
        throw CommandFailure("cannot write to standard output: \(FileSystemFailure.reason(errno: code)); nothing after that was written")
    }

    /// Writes a line to standard error.
    static func warn(_ text: String, newline: Bool = true) {
        FileHandle.standardError.write(Data((text + (newline ? "\n" : "")).utf8))
    }

    /// A byte count for people: `98.4 MB`.
    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }
}
