import Foundation
import TideCore
import TideFormat

/// Streams a reply to standard output as it is generated; Ctrl-C cancels the reply (not the
/// program), and the partial text stays in the session's history.
struct ReplyPrinter {
    let session: ChatSession

    /// Asks for the reply to `message`, prints its text as it comes, reports hook failures (and a
    /// reply that is not complete in its format) on standard error, and returns the summary (stop reason ``StopReason/cancelled`` after Ctrl-C).
    func reply(to message: String) async throws -> ReplySummary? {
        let stream = session.reply(to: message)
        let consumer = Task {
            var summary: ReplySummary?
            for try await event in stream {
                switch event {
                case .text(let text): Terminal.write(text)
                case .hookFailure(let failure): Terminal.warn("\n\(failure) (the plugin is now disabled)")
                case .finished(let finished): summary = finished
                }
            }
            return summary
        }
        let interrupt = InterruptHandler { [session] in session.cancelReply() }
        defer { interrupt.stop() }
        let summary = try await consumer.value
        Terminal.write("\n")
        if let summary, let problem = summary.format?.problem(with: summary.text, stopReason: summary.stopReason) {
            Terminal.warn("the reply is not in its format (\(summary.format!.description)): \(problem)")
        }
        return summary
    }
}

/// Turns SIGINT into a callback while it lives, instead of ending the process.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    init(_ onInterrupt: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: onInterrupt)
        source.resume()
    }

    /// Restores the default behaviour of SIGINT.
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
