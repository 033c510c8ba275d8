import Foundation
import TideCore
import TideFormat
import TideReports

/// Streams a reply to standard output as it is generated; Ctrl-C cancels the reply (not the
/// program), and the partial text stays in the session's history.
struct ReplyPrinter {
    let session: ChatSession
    /// Whether the text goes to standard output as it comes, and the problems to standard error
    /// after it (else the caller reports them, as `tide generate --json` does).
    var streaming = true

    /// How a reply went.
    struct Outcome {
        /// The reply's summary; `nil` if the stream ended without one.
        var summary: ReplySummary?
        /// The plugin failures met (each plugin is disabled after its failure).
        var failures: [String]
        /// Why the reply is not complete in its format, if it has one and is not.
        var formatProblem: String?
    }

    /// Asks for the reply to `message` and returns how it went (stop reason
    /// ``StopReason/cancelled`` after Ctrl-C). Streaming, the problems are printed after the
    /// reply's text, on lines of their own.
    func reply(to message: String) async throws -> Outcome {
        let stream = session.reply(to: message)
        let consumer = Task { [streaming] in
            var outcome = Outcome(failures: [])
            // Whether reasoning written left its line open: the answer then starts on a new one.
            var reasoningLineOpen = false
            for try await event in stream {
                switch event {
                case .text(let text):
                    if reasoningLineOpen { Terminal.warn("") }
                    reasoningLineOpen = false
                    if streaming { Terminal.write(text) }
                // Standard output holds the answer; the reasoning goes beside it, dimmed on a terminal.
                case .reasoning(let text):
                    guard streaming else { break }
                    Terminal.warn(TextStyle.standardError.dim(text), newline: false)
                    reasoningLineOpen = !text.hasSuffix("\n")
                case .hookFailure(let failure): outcome.failures.append("\(failure) (the plugin is now disabled)")
                case .toolCall, .toolCallText, .logprobs, .promptLogprobs, .rewound: break
                case .toolResult(let result): Terminal.warn(ToolReport.line(result))
                case .finished(let finished): outcome.summary = finished
                }
            }
            if let summary = outcome.summary, let format = summary.format,
               let problem = format.problem(with: summary.text, stopReason: summary.stopReason)
            {
                outcome.formatProblem = "the reply is not in its format (\(format.description)): \(problem)"
            }
            if let problem = outcome.summary?.toolCallProblem { outcome.failures.append("the model's tool call was not run: \(problem)") }
            return outcome
        }
        let interrupt = InterruptHandler { [session] in session.cancelReply() }
        defer { interrupt.stop() }
        let outcome = try await consumer.value
        if streaming {
            Terminal.write("\n")
            for problem in outcome.failures + [outcome.formatProblem].compactMap({ $0 }) { Terminal.warn(problem) }
        }
        return outcome
    }
}
