import Foundation
import TideChat
import TideCore

/// The answers to `--approve-tools`: each call is shown, and the next line typed (at the chat's
/// prompt) or piped (the next line of standard input, which the chat reads for its messages
/// too) says whether it runs: `y` or `yes` runs it, anything else — Ctrl-C, the end of input —
/// declines it. The chat asks while a reply waits, when nothing else reads the input.
final class ToolAnswers: @unchecked Sendable {
    /// The chat's line editor, on a terminal.
    var editor: LineEditor?
    private var standardInput = StandardInput()
    private let lock = NSLock()

    /// The next line of standard input, for the piped chat's messages.
    func readLine() throws -> String? {
        try lock.withLock { try standardInput.readLine() }
    }

    /// Asks whether `call` runs.
    func approve(_ call: ToolCall) -> Bool {
        let question = "run tool \(call.name) \(call.arguments)? [y/N] "
        let answer: String?
        if let editor {
            Terminal.write("\n")
            if case .line(let line) = editor.read(prompt: question) { answer = line } else { answer = nil }
        } else {
            Terminal.write(question)
            answer = try? readLine()
            Terminal.write("\(answer ?? "")\n")
        }
        return ["y", "yes"].contains(answer?.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
