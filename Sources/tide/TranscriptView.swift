import Foundation
import TideReports
import TideRunner

/// Shows a script's replay as it happens, in the script format: turns and directives as they are
/// applied, replies as they stream, then each expectation with ✓ or ✗.
struct TranscriptView: Sendable {
    /// Whether to add each reply's statistics as a comment.
    let verbose: Bool
    let style: TextStyle

    func header(_ file: String) {
        Terminal.write(style.dim("# \(file)") + "\n")
    }

    func show(_ event: RunEvent) {
        switch event {
        case .item(let item): Terminal.write(item.printed + "\n")
        case .replyStarted: Terminal.write(style.bold("assistant: "))
        case .text(let text): Terminal.write(text)
        case .reasoning(let text): Terminal.write(style.dim(text))
        case .replyFinished(let reply):
            Terminal.write("\n")
            for failure in reply.hookFailures { Terminal.warn(style.red("\(failure) (the plugin is now disabled)")) }
            if verbose {
                Terminal.write(style.dim("# \(reply.statistics.generatedTokens) tokens · stop \(reply.stopReason)"
                    + (reply.teacherForcing.map { " · \($0)" } ?? "")) + "\n")
            }
            showChecks(of: reply)
        case .transcript: break
        }
    }

    /// Shows a case given back without replaying it (from `source`: the cache, the run resumed):
    /// its transcript, then each reply's checks.
    func show(given result: ScriptResult, from source: String) {
        Terminal.write(style.dim("# given back from \(source), not replayed") + "\n")
        if let transcript = result.transcript { Terminal.write(transcript.printed()) }
        for reply in result.replies {
            Terminal.write(style.dim("# the reply at line \(reply.line):") + "\n")
            showChecks(of: reply)
        }
    }

    /// Each check of `reply` with ✓ or ✗, and its comparison with a golden transcript.
    private func showChecks(of reply: ReplyResult) {
        for result in reply.expectations {
            let measure = result.measure.map { " (\(String(format: "%.3f", $0)))" } ?? result.reason.map { " (\($0))" } ?? ""
            Terminal.write(result.passed ? style.green("✓ \(result.text)\(measure)") + "\n"
                                         : style.red("✗ \(result.text) — \(result.detail)") + "\n")
        }
        if let golden = reply.golden {
            Terminal.write(golden.matches ? style.green("✓ same as the golden transcript") + "\n"
                                          : style.red("✗ differs from the golden transcript:\n\(golden.difference)") + "\n")
        }
    }
}
