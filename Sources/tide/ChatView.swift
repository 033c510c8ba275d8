import Foundation
import Synchronization
import TideChat
import TideCore
import TideReports

/// Draws a chat's events: replies as they stream on standard output, command output, problems
/// on standard error. Styles only on a terminal (and never with `NO_COLOR`); piped, standard
/// output holds the replies and command output as plain text.
struct ChatView: Sendable {
    let style = TextStyle.standardOutput
    let errorStyle = TextStyle.standardError
    /// Whether the last text written left its line open (a reply streaming): a trace line then
    /// starts on a line of its own.
    private let line = OpenLine()

    /// The prompt for a new input, and inside a `"""` block.
    func prompt(continuing: Bool) -> String {
        sign(continuing ? "..." : ">>>", mark: LineEditor.invisible)
    }

    /// A prompt sign in the prompt's style. The space comes after the closing code: libedit
    /// drops an invisible run that ends a prompt.
    private func sign(_ text: String, mark: (String) -> String = { $0 }) -> String {
        style.wrap(text, "1;32", mark: mark) + " "
    }

    /// Draws one event: a reply's end gets its newline, and a mark when it did not end by itself.
    func show(_ event: ChatEvent) {
        switch event {
        case .trace: break
        case .replyText(let text), .replyReasoning(let text):
            if !text.isEmpty { line.open.store(!text.hasSuffix("\n"), ordering: .relaxed) }
        default: line.open.store(false, ordering: .relaxed)
        }
        switch event {
        case .userTurn(let text):
            Terminal.write(sign(">>>") + text + "\n")
        case .replyText(let text):
            Terminal.write(text)
        case .replyReasoning(let text):
            Terminal.write(style.dim(text))
        case .replyEnded(let reason):
            switch reason {
            case .cancelled?: Terminal.write(" " + style.dim("[interrupted]") + "\n")
            case nil, .endOfGeneration?, .answeredByHook?: Terminal.write("\n")
            case let reason?: Terminal.write(style.enabled ? " " + style.dim("[\(reason)]") + "\n" : "\n")
            }
        case .notice(let text):
            Terminal.write(style.dim(text) + "\n")
        case .trace(let text):
            Terminal.write((line.open.exchange(false, ordering: .relaxed) ? "\n" : "") + style.dim(text) + "\n")
        case .problem(let text):
            Terminal.warn(errorStyle.red("error: ") + text)
        }
    }

    /// Tab's candidates, below the line being edited.
    func list(_ candidates: [String]) {
        Terminal.write("\n" + candidates.joined(separator: "  ") + "\n")
    }

    /// The first lines of an interactive chat.
    func banner(_ chat: ChatController) {
        Terminal.write(style.bold("tide \(tideVersion)") + " · " + chat.banner + "\n"
            + style.dim("/help for commands · \"\"\" for several lines · Ctrl-C stops a reply · Ctrl-D leaves") + "\n")
    }
}

/// Whether the chat's last text left its line open.
private final class OpenLine: Sendable {
    let open = Atomic<Bool>(false)
}
