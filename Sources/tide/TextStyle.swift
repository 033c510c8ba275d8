import Foundation

/// ANSI colours and styles, on a terminal only and never when `NO_COLOR` is set.
struct TextStyle: Sendable {
    /// Whether styles are drawn.
    let enabled: Bool

    /// Styles for standard output, if it is a terminal and `NO_COLOR` is unset or empty.
    static var standardOutput: TextStyle {
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return TextStyle(enabled: Terminal.stdoutIsTTY && !noColor)
    }

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func green(_ text: String) -> String { wrap(text, "32") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
