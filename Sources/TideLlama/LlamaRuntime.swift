import CLlama
import Foundation
import Synchronization

/// Process-wide set-up of llama.cpp: backend initialisation and its log.
///
/// llama.cpp logs a lot to stderr. Tide keeps it quiet and remembers the last error lines, so
/// that a failed load can say why (`TIDE_LLAMA_LOG=1` passes the whole log through instead).
enum LlamaRuntime {
    private static let initialised: Void = {
        llama_log_set({ level, text, _ in LlamaRuntime.record(level: level, text: text) }, nil)
        llama_backend_init()
    }()

    private static let verbose = ProcessInfo.processInfo.environment["TIDE_LLAMA_LOG"] == "1"
    private static let recentErrors = Mutex<[String]>([])

    /// Initialises llama.cpp once per process.
    static func ensureInitialised() { _ = initialised }

    /// Forgets earlier error lines, before an operation whose failure should be explained.
    static func clearErrors() { recentErrors.withLock { $0.removeAll() } }

    /// The error lines llama.cpp logged since the last ``clearErrors()``, joined.
    static func errors() -> String {
        recentErrors.withLock { $0.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    private static func record(level: ggml_log_level, text: UnsafePointer<CChar>?) {
        guard let text else { return }
        let line = String(cString: text)
        if verbose { FileHandle.standardError.write(Data(line.utf8)) }
        guard level == GGML_LOG_LEVEL_ERROR else { return }
        recentErrors.withLock { lines in
            lines.append(line)
            if lines.count > 8 { lines.removeFirst() }
        }
    }
}
