import CEditLineShim
import Foundation

/// Line editing on a terminal (libedit, emacs keys): history kept in a file, Tab completion,
/// and Ctrl-C reported as an input of its own rather than a signal.
public final class LineEditor {
    /// What a read gave.
    public enum Input: Sendable, Hashable {
        /// A line, without its newline.
        case line(String)
        /// Ctrl-C: what was typed is abandoned.
        case interrupt
        /// Ctrl-D on an empty line, or the terminal closed.
        case end
    }

    private let editor: OpaquePointer
    private let historyFile: URL?
    private let complete: (String) -> TabCompletion?
    private let list: ([String]) -> Void

    /// An editor on standard input and output, or `nil` unless both are a terminal.
    /// - Parameters:
    ///   - historyFile: read now and written after every line; its folder is created.
    ///   - complete: what Tab does with the text before the cursor.
    ///   - list: shows candidates when Tab cannot choose.
    public init?(historyFile: URL?, complete: @escaping (String) -> TabCompletion?, list: @escaping ([String]) -> Void) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return nil }
        self.historyFile = historyFile
        self.complete = complete
        self.list = list
        guard let editor = tide_editor_open("tide")
        else { return nil }
        self.editor = editor
        tide_editor_set_completion(editor, Unmanaged.passUnretained(self).toOpaque()) { context, before, insert in
            let editor = Unmanaged<LineEditor>.fromOpaque(context!).takeUnretainedValue()
            guard let completion = editor.complete(String(cString: before!)) else { return TIDE_COMPLETE_NONE }
            if !completion.candidates.isEmpty {
                editor.list(completion.candidates)
                return TIDE_COMPLETE_LISTED
            }
            insert!.pointee = strdup(completion.insert)
            return TIDE_COMPLETE_INSERT
        }
        if let historyFile {
            try? FileManager.default.createDirectory(at: historyFile.deletingLastPathComponent(),
                                                     withIntermediateDirectories: true)
            _ = tide_editor_history_load(editor, historyFile.path)
        }
    }

    deinit {
        tide_editor_close(editor)
    }

    /// Reads a line after showing `prompt`. `invisible` parts of the prompt (colour codes) must be
    /// wrapped as ``invisible(_:)`` makes them.
    public func read(prompt: String) -> Input {
        tide_editor_set_prompt(editor, prompt)
        var status = TIDE_READ_LINE
        let line = String(cString: tide_editor_read(editor, &status))
        switch status {
        case TIDE_READ_INTERRUPT: return .interrupt
        case TIDE_READ_END: return .end
        default: return .line(line.hasSuffix("\n") ? String(line.dropLast()) : line)
        }
    }

    /// Adds a line to the history and writes the history file.
    public func remember(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        tide_editor_history_add(editor, line)
        if let historyFile { _ = tide_editor_history_save(editor, historyFile.path) }
    }

    /// Marks text in a prompt as taking no room on the screen (colour codes).
    public static func invisible(_ text: String) -> String {
        text.isEmpty ? "" : "\u{1}\(text)\u{1}"
    }

    /// `$XDG_STATE_HOME/tide/history`, by default `~/.local/state/tide/history`.
    public static var standardHistoryFile: URL {
        let environment = ProcessInfo.processInfo.environment
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state")
        return state.appendingPathComponent("tide/history")
    }
}
