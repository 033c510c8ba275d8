import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// Output that cannot be written — a report to a full device, a folder given for a file,
    /// standard output on a full device — is said, with the path and the reason, and the status is
    /// not 0; it never counts as a script's failure, and never replaces a device.
    @Suite(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "no /dev/full here"))
    struct OutputFailureTests {
        func script() throws -> URL {
            let file = try CommandLineTests.scratchFolder("output").appendingPathComponent("s.tide")
            try "@plugin \(ScratchPlugins.capitalsFile)\nuser: What is the capital of Italy?\nexpect: contains \"Rome\"\n"
                .write(to: file, atomically: true, encoding: .utf8)
            return file
        }

        /// `tide ARGUMENTS > /dev/full`.
        func toFullDevice(_ arguments: [String]) throws -> TideProcess.Result {
            try TideProcess.run(["-c", "exec \"$0\" \"$@\" > /dev/full"] + [TideProcess.executable.path] + arguments,
                                program: URL(fileURLWithPath: "/bin/sh"))
        }

        @Test func aReportThatCannotBeWrittenIsTheReportsFailure() throws {
            let file = try script()
            let full = try TideProcess.run(["run", "--junit", "/dev/full", file.path])
            #expect(full.status == 2)
            #expect(full.stderr.contains("Error: /dev/full: cannot write the JUnit report: no space left on the device"), "\(full.stderr)")
            #expect(full.stdout.contains("1 passed, 0 failed (1 script,") && !full.stdout.contains("could not run"), "\(full.stdout)")
            var status = stat()
            #expect(lstat("/dev/full", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "the device is still a device")

            let folder = try TideProcess.run(["run", "--junit", file.deletingLastPathComponent().path, file.path])
            #expect(folder.status == 2 && folder.stderr.contains("cannot write the JUnit report: it is a folder"), "\(folder.stderr)")
            #expect(!folder.stdout.contains("could not run"), "\(folder.stdout)")

            let tap = try toFullDevice(["run", "--tap", file.path])
            #expect(tap.status == 2)
            #expect(tap.stderr.contains("Error: cannot write to standard output: no space left on the device"), "\(tap.stderr)")

            let standardOutput = try TideProcess.run(["run", "--junit", "/dev/stdout", "-q", file.path])
            #expect(standardOutput.status == 0 && standardOutput.stdout.hasPrefix("<?xml"), "\(standardOutput.stdout)")
        }

        @Test func standardOutputOnAFullDeviceIsAnError() throws {
            let generated = try toFullDevice(["generate", "--max-tokens", "2", "Hi"])
            #expect(generated.status == 1)
            #expect(generated.stderr == "Error: cannot write to standard output: no space left on the device; nothing after that was written\n",
                    "\(generated.stderr)")
            let listed = try toFullDevice(["models", "list"])
            #expect(listed.status == 1 && listed.stderr.contains("cannot write to standard output"), "\(listed.stderr)")
        }
    }
}
