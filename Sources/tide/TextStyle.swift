import Foundation

/// ANSI colours and styles, on a terminal only and never when `NO_COLOR` is set.
struct TextStyle: Sendable {
    /// Whether styles are drawn.
    let enabled: Bool

    /// Styles for standard output, if it is a terminal and `NO_COLOR` is unset or empty.
    static var standardOutput: TextStyle { TextStyle(enabled: Terminal.stdoutIsTTY && !noColor) }

    /// Styles for standard error, on the same terms.
    static var standardError: TextStyle { TextStyle(enabled: Terminal.stderrIsTTY && !noColor) }

    private static var noColor: Bool { ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false }

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func green(_ text: String) -> String { wrap(text, "32") }

    /// `text` in the style `code`; `mark` wraps the escape codes (a line editor's prompt must
    /// know which bytes take no room on the screen).
    func wrap(_ text: String, _ code: String, mark: (String) -> String = { $0 }) -> String {
        enabled ? mark("\u{1B}[\(code)m") + text + mark("\u{1B}[0m") : text
    }
}
