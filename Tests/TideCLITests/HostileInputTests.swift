import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// Inputs that once crashed, hung or exhausted `tide`, or failed with words nobody could act on.
    @Suite struct HostileInputTests {
        func scratchFolder() throws -> URL { try CommandLineTests.scratchFolder("hostile") }

        /// Numbers past 2^31 trapped converting to llama.cpp's 32-bit integers.
        @Test(arguments: [
            (["--top-k", "2147483648"], "--top-k must be a whole number from 0 to 2147483647, not '2147483648'"),
            (["--repeat-last-n", "2147483648"], "--repeat-last-n must be a whole number from 0 to 1048576, not '2147483648'"),
            (["--max-tokens", "99999999999"], "--max-tokens must be a whole number from 0 to 2147483647, not '99999999999'"),
            (["--ctx-size", "4294967312"], "--ctx-size must be from 16 to 16777216, not 4294967312"),
            (["--ctx-size", "1000000"], "a context of 1000000 tokens is larger than the model was trained on (8192 tokens)"),
            (["--temperature", "1e300"], "--temperature must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38, not '1e300'"),
            (["--gpu-layers=-5"], "--gpu-layers must be -1 (all) or a count ≥ 0, not -5"),
            (["--plugin-memory", "9999999999999"], "--plugin-memory must be from 1 to 16384 (MiB), not 9999999999999"),
        ])
        func numbersOutOfRangeAreRefusedNotTrapped(arguments: [String], message: String) throws {
            let result = try TideProcess.run(["generate"] + arguments + ["Hi"], timeout: .seconds(120))
            #expect(result.status == 1 || result.status == 2, "\(result.status): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }

        @Test func hugeGPULayerAndThreadCountsRunClamped() throws {
            let result = try TideProcess.run(["generate", "--gpu-layers", "99999999999", "--threads", "64", "--max-tokens", "2",
                                              "--temperature", "0", "Hi"], timeout: .seconds(120))
            #expect(result.status == 0, "\(result.stderr)")
            let cores = ProcessInfo.processInfo.activeProcessorCount
            #expect(result.stderr.contains("--threads 64 is more than this machine's \(cores) cores; using \(cores)"))
        }

        @Test func scriptsAndChatCheckTheSameRanges() throws {
            let folder = try scratchFolder()
            let script = folder.appendingPathComponent("big.tide")
            try Data("@top-k 2147483648\nuser: Hi\n".utf8).write(to: script)
            let run = try TideProcess.run(["run", script.path], timeout: .seconds(120))
            #expect(run.status != 0)
            #expect(run.stdout.contains("big.tide:1:8: @top-k must be a whole number from 0 to 2147483647, not '2147483648'"),
                    "\(run.stdout)")
            let chat = try TideProcess.run(["chat", "--max-tokens", "2"], stdin: "/set top-k 2147483648\n",
                                           timeout: .seconds(120))
            #expect(chat.stdout.contains("top-k must be a whole number from 0 to 2147483647")
                || chat.stderr.contains("top-k must be a whole number from 0 to 2147483647"), "\(chat.stdout)\(chat.stderr)")
        }

        /// A script asking for more context than the model was trained on fails alone, named, also
        /// when it shares a batch with others.
        @Test func aScriptsOversizedContextFailsThatScriptAlone() throws {
            let folder = try scratchFolder()
            let big = folder.appendingPathComponent("big.tide")
            let fine = folder.appendingPathComponent("fine.tide")
            try Data("@ctx-size 100000\nuser: Hi\n".utf8).write(to: big)
            try Data("@temperature 0\n@max-tokens 3\nuser: Hi\nexpect: tokens <= 3\n".utf8).write(to: fine)
            for parallel in ["1", "2"] {
                let result = try TideProcess.run(["run", "--parallel", parallel, big.path, fine.path], timeout: .seconds(120))
                #expect(result.status == 2)
                #expect(result.stdout.contains("\(big.path): a context of 100000 tokens is larger than the model was trained on"),
                        "\(result.stdout)")
                #expect(result.stdout.contains("1 passed, 0 failed, 1 script could not run (2 scripts"), "\(result.stdout)")
            }
        }

        /// `tide generate - < /dev/zero` grew to 20 GB in a minute.
        @Test func endlessStandardInputIsCutOffWithAnError() throws {
            let generate = try TideProcess.run(["generate", "-"], stdinFile: "/dev/zero", timeout: .seconds(60))
            #expect(generate.status == 1, "\(generate.stderr)")
            #expect(generate.stderr.contains("the prompt on standard input is longer than 4 MiB"), "\(generate.stderr)")
            let chat = try TideProcess.run(["chat"], stdinFile: "/dev/zero", timeout: .seconds(60))
            #expect(chat.status == 1, "\(chat.stderr)")
            #expect(chat.stderr.contains("a line on standard input is longer than 4 MiB"), "\(chat.stderr)")
        }

        /// "aaaa\0 bbbb" was answered as "aaaa".
        @Test func aNulCharacterIsRefusedNotTruncated() throws {
            let folder = try scratchFolder()
            let input = folder.appendingPathComponent("nul.txt")
            try Data("Repeat after me: aaaa\u{0} bbbb".utf8).write(to: input)
            let result = try TideProcess.run(["generate", "--max-tokens", "4", "-"], stdinFile: input.path, timeout: .seconds(120))
            #expect(result.status == 1)
            #expect(result.stderr.contains("a user message holds a NUL character (U+0000), which a chat template cannot carry"),
                    "\(result.stderr)")
        }

        @Test func pipesDevicesAndFoldersGivenAsFilesAreNamed() throws {
            let folder = try scratchFolder()
            let fifo = folder.appendingPathComponent("script.tide").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let model = folder.appendingPathComponent("model.gguf").path
            #expect(mkfifo(model, 0o600) == 0)
            let cases: [([String], String)] = [
                (["run", fifo], "\(fifo): cannot read the script: it is a named pipe (FIFO), not a regular file"),
                (["run", "/dev/zero"], "/dev/zero: cannot read the script: it is a character device, not a regular file"),
                (["generate", "--model", model, "Hi"], "\(model) is not a usable GGUF model: it is a named pipe (FIFO)"),
                (["generate", "--plugin", fifo.replacingOccurrences(of: ".tide", with: ".lua"), "Hi"], "no plugin"),
            ]
            for (arguments, message) in cases {
                let result = try TideProcess.run(arguments, timeout: .seconds(60))
                #expect(result.status != 0 && result.status != TideProcess.killedStatus, "\(arguments): \(result.status)")
                // tide run reports a script it cannot read on standard output, with the other scripts.
                #expect((result.stdout + result.stderr).contains(message), "\(arguments): \(result.stdout)\(result.stderr)")
            }
            let plugin = folder.appendingPathComponent("pipe.lua").path
            #expect(mkfifo(plugin, 0o600) == 0)
            let result = try TideProcess.run(["generate", "--plugin", plugin, "Hi"], timeout: .seconds(60))
            #expect(result.stderr.contains("\(plugin): cannot read the plugin: it is a named pipe (FIFO)"), "\(result.stderr)")
        }

        /// Mistakes found while a command runs are said as mistakes: a token id the model lacks is a
        /// usage error (exit 2) like a malformed bias; a subcommand's usage is named whole
        /// (`tide mcp list --help`); a file in /proc is not blamed on a full disk; a missing column
        /// among thousands lists a few; a log folder that cannot be made is said in words.
        @Test(.enabled(if: ScratchFileSystem.available, "needs root to mount a tmpfs"))
        func mistakesFoundWhileRunningAreSaidPlainly() throws {
            let bias = try TideProcess.run(["generate", "--logit-bias", "99999999=-100", "--max-tokens", "1", "Hi"])
            #expect(bias.status == 2 && bias.stderr.contains("a token id of this model"), "\(bias.status): \(bias.stderr)")
            let mcp = try TideProcess.run(["mcp", "list", "--mcp", "-x: true"])
            #expect(mcp.stderr.contains("See 'tide mcp list --help'"), "\(mcp.stderr)")

            let folder = try scratchFolder()
            let script = folder.appendingPathComponent("hello.tide")
            try Data("@max-tokens 1\nuser: Hi\n".utf8).write(to: script)
            let proc = try TideProcess.run(["run", "--html", "/proc/version", script.path])
            #expect(proc.status != 0 && !proc.stderr.contains("no space left"), "\(proc.stderr)")

            let columns = (0..<10_000).map { "c\($0)" }
            try (columns.joined(separator: ",") + "\n" + columns.map { _ in "1" }.joined(separator: ",") + "\n")
                .write(to: folder.appendingPathComponent("wide.csv"), atomically: true, encoding: .utf8)
            let wide = folder.appendingPathComponent("wide.tide")
            try "@data wide.csv\n@max-tokens 1\nuser: {{missing}}\n".write(to: wide, atomically: true, encoding: .utf8)
            let missing = try TideProcess.run(["run", wide.path])
            #expect(missing.status != 0 && (missing.stdout + missing.stderr).contains("c19 and 9980 more"), "\((missing.stdout + missing.stderr).prefix(2000))")
            #expect((missing.stdout + missing.stderr).count < 20_000)

            let readOnly = try ScratchFileSystem(bytes: 1 << 20)
            try readOnly.makeReadOnly()
            let logged = try TideProcess.run(["generate", "--max-tokens", "1", "Hi"],
                                             environment: ["XDG_DATA_HOME": readOnly.folder.appendingPathComponent("data").path])
            #expect(logged.stderr.contains("cannot write the log at") && logged.stderr.contains("make it writable, or set XDG_DATA_HOME"),
                    "\(logged.stderr)")
            #expect(!logged.stderr.contains("NSCocoaErrorDomain"), "\(logged.stderr)")
        }

        @Test func aScriptWithAByteOrderMarkParses() throws {
            let folder = try scratchFolder()
            let script = folder.appendingPathComponent("bom.tide")
            try Data([0xEF, 0xBB, 0xBF] + Array("@temperature 0\n@max-tokens 3\nuser: Hi\n".utf8)).write(to: script)
            let result = try TideProcess.run(["run", script.path], timeout: .seconds(120))
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("0 passed, 0 failed"), "\(result.stdout)")
        }

        /// `--out` pointing at the scripts' own folder replaced every script with its transcript.
        @Test func transcriptsNeverReplaceTheirScriptsUnlessAsked() throws {
            let folder = try scratchFolder()
            let script = folder.appendingPathComponent("hello.tide")
            let text = "@temperature 0\n@max-tokens 3\nuser: Hi\n"
            try Data(text.utf8).write(to: script)
            let refused = try TideProcess.run(["run", "--out", folder.path, script.path], timeout: .seconds(120))
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("--out \(folder.path) would replace \(script.path) with its transcript; "
                + "choose another folder, or add --replace-scripts to do that"), "\(refused.stderr)")
            #expect(try String(contentsOf: script, encoding: .utf8) == text)
            let asked = try TideProcess.run(["run", "--replace-scripts", "--out", folder.path + "/", script.path],
                                            timeout: .seconds(120))
            #expect(asked.status == 0, "\(asked.stderr)")
            #expect(try String(contentsOf: script, encoding: .utf8).contains("@generated"))
        }

        @Test(.enabled(if: ScratchFileSystem.available, "needs root to mount a tmpfs"))
        func transcriptsToAReadOnlyOrFullFolderFailBeforeGeneratingAndLeaveNothing() throws {
            let folder = try scratchFolder()
            let script = folder.appendingPathComponent("hello.tide")
            try Data("@temperature 0\n@max-tokens 3\nuser: Hi\n".utf8).write(to: script)
            let readOnly = try ScratchFileSystem(bytes: 1 << 20)
            try readOnly.makeReadOnly()
            let refused = try TideProcess.run(["run", "--out", readOnly.folder.path, script.path], timeout: .seconds(120))
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("\(readOnly.folder.path): cannot write files in this folder: the file system is read-only"),
                    "\(refused.stderr)")
            #expect(!refused.stderr.contains("NSCocoaErrorDomain"))
            let saved = try TideProcess.run(["chat", "--max-tokens", "2"],
                                            stdin: "Hi\n/save \(readOnly.folder.path)/chat.tide\n", timeout: .seconds(120))
            let said = saved.stdout + saved.stderr
            #expect(said.contains("\(readOnly.folder.path): cannot write files in this folder: the file system is read-only"),
                    "\(said)")
            #expect(!said.contains("NSCocoaErrorDomain"))

            let full = try ScratchFileSystem(bytes: 64 << 10)
            full.fill()
            let failed = try TideProcess.run(["run", "--out", full.folder.path, script.path], timeout: .seconds(120))
            #expect(failed.status == 2)
            #expect(failed.stderr.contains("\(full.folder.path): cannot write files in this folder: no space left on the device"),
                    "\(failed.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: full.folder.path)
            #expect(left == [".filler"], "a failed write left \(left)")
        }
    }
}
