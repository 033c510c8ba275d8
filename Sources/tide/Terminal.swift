import Foundation

/// Facts about the terminal and small helpers for writing to it.
enum Terminal {
    /// Whether standard error is a terminal (progress bars go there).
    static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether standard output is a terminal (transcripts stream there).
    static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Writes text to standard output at once (replies stream token by token).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes a line to standard error.
    static func warn(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A byte count for people: `98.4 MB`.
    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }
}
