import Foundation
import Testing

extension CommandLineTests {
    /// `tide run` on a machine that something else keeps busy: a busy loop on every core, started
    /// and stopped by the test. The example conversations (the rewinding plugins of
    /// `banned-phrases.tide` among them, and their regular expressions and `expect-lua:` checks)
    /// give the same verdicts as on the idle machine, because every limit a verdict can meet is
    /// counted in work, and the decode shares the cores instead of spinning against the loops.
    @Suite(.timeLimit(.minutes(10))) struct BusyMachineTests {
        /// Each expectation's line and verdict in `tide run`'s report.
        func verdicts(_ output: String) -> [Substring] {
            output.split(separator: "\n").filter { $0.contains(": PASS ") || $0.contains(": FAIL ") }
        }

        @Test func theExamplesGiveTheSameVerdictsOnABusyMachine() throws {
            let idle = try TideProcess.run(["run", "Conversations/"])
            #expect(idle.status == 0, "\(idle.stdout)\n\(idle.stderr)")
            #expect(verdicts(idle.stdout).count > 20)

            let cores = ProcessInfo.processInfo.activeProcessorCount
            let loops = try (0..<cores).map { _ in
                let loop = Process()
                loop.executableURL = URL(fileURLWithPath: "/bin/sh")
                loop.arguments = ["-c", "while :; do :; done"]
                try loop.run()
                return loop
            }
            defer {
                // A shell's builtin loop never looks at a pending SIGTERM.
                for loop in loops {
                    kill(loop.processIdentifier, SIGKILL)
                    loop.waitUntilExit()
                }
            }
            let busy = try TideProcess.run(["run", "Conversations/"], timeout: .seconds(480))
            let stillBusy = loops.allSatisfy { $0.isRunning }
            #expect(stillBusy, "the machine was busy all along")
            #expect(busy.status == idle.status, "\(busy.stdout)\n\(busy.stderr)")
            #expect(verdicts(busy.stdout) == verdicts(idle.stdout))
            #expect(!busy.stderr.contains("plugin"), "\(busy.stderr)")
        }
    }
}
