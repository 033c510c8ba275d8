import Foundation

/// ANSI colours and styles, drawn or not (the `tide` target draws them on a terminal only, and
/// never when `NO_COLOR` is set).
public struct TextStyle: Sendable {
    /// Whether styles are drawn.
    public let enabled: Bool

    /// Styles drawn when `enabled`.
    public init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Whether `NO_COLOR` asks for no styles: set and not empty.
    public static var noColor: Bool { ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false }

    /// `text` in bold.
    public func bold(_ text: String) -> String { wrap(text, "1") }
    /// `text` dimmed.
    public func dim(_ text: String) -> String { wrap(text, "2") }
    /// `text` in red.
    public func red(_ text: String) -> String { wrap(text, "31") }
    /// `text` in green.
    public func green(_ text: String) -> String { wrap(text, "32") }

    /// `text` in the style `code`; `mark` wraps the escape codes (a line editor's prompt must
    /// know which bytes take no room on the screen).
    public func wrap(_ text: String, _ code: String, mark: (String) -> String = { $0 }) -> String {
        enabled ? mark("\u{1B}[\(code)m") + text + mark("\u{1B}[0m") : text
    }
}
