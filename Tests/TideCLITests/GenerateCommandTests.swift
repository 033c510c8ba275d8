import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    @Suite struct GenerateCommandTests {
        @Test func answersAQuestionWithTheBundledModel() throws {
            let result = try TideProcess.run(["generate", "--temperature", "0", "--stats", "--plugin", ScratchPlugins.capitalsFile,
                                              "What is the capital of France?"])
            #expect(result.status == 0)
            #expect(result.stdout == "The capital of France is Paris.\n", "the words the plugin makes certain")
            #expect(result.stderr.contains("prompt tokens:"))
            #expect(result.stderr.contains("tokens/s:"))
            #expect(result.stderr.contains("runs on: \(GPUMachine.placement ?? "CPU") · stop: eos"), "\(result.stderr)")
        }

        /// On a llama.cpp built for the CPU alone, a --gpu-layers asked for is said to have no
        /// effect, and the reply comes as usual.
        @Test(.enabled(if: GPUMachine.placement == nil, "this machine has a GPU"))
        func gpuLayersOnACPUBuildAreNoted() throws {
            let result = try TideProcess.run(["generate", "--gpu-layers", "-1", "--max-tokens", "2", "--stats", "Hi"])
            #expect(result.status == 0)
            #expect(result.stderr.hasPrefix("note: --gpu-layers -1 has no effect: this llama.cpp has no GPU offload"), "\(result.stderr)")
            #expect(result.stderr.contains("runs on: CPU"))
            let quiet = try TideProcess.run(["generate", "--gpu-layers", "0", "--max-tokens", "2", "Hi"])
            #expect(quiet.status == 0 && quiet.stderr.isEmpty, "--gpu-layers 0 asks for the CPU: \(quiet.stderr)")
        }

        @Test func readsThePromptFromStandardInput() throws {
            let result = try TideProcess.run(["generate", "--temperature", "0", "--max-tokens", "3", "--stats", "-"],
                                             stdin: "What is the capital of France?")
            #expect(result.status == 0)
            #expect(result.stdout.count > 0)
            let end = try #require(PrintedEnd(result.stderr))
            #expect(end.isWithin(3), "\(end)")
        }

        @Test func stopStringsFromTheCommandLine() throws {
            let result = try TideProcess.run(["generate", "--temperature", "0", "--stop", "Paris", "--stats",
                                              "--plugin", ScratchPlugins.capitalsFile, "What is the capital of France?"])
            #expect(result.status == 0)
            #expect(result.stdout == "The capital of France is \n", "\(result.stdout)")
            #expect(result.stderr.contains("stop: stop-string: \"Paris\""))
        }

        @Test(arguments: [
            (["--temperature=-1"], "--temperature must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38, not '-1'"),
            (["--temperature", "-1"], "--temperature must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38, not '-1'"),
            (["--top-k", "-5"], "--top-k must be a whole number from 0 to"),
            (["--max-tokens", "-3"], "--max-tokens must be a whole number from 0 to"),
            (["--top-p", "1.5"], "--top-p must be a number in (0, 1], not '1.5'"),
            (["--logprobs", "21"], "--logprobs must be a whole number from 0 to 20, or -1 for none, not '21'"),
            // Out of range once read as "none".
            (["--reasoning-budget", "3000000000"], "--reasoning-budget must be a whole number from 0 to 2147483647, or -1 for no limit, not '3000000000'"),
            (["--ctx-size", "2"], "--ctx-size must be from 16 to 16777216, not 2"),
            (["--template", "klingon"], "unknown --template 'klingon'"),
            (["--model", "llama-9000"], "unknown model 'llama-9000'"),
            (["--model", "/nonexistent/x.gguf"], "no model file at /nonexistent/x.gguf"),
            (["--model", "/etc/hostname"], "is not a usable GGUF model"),
            (["--model", "gemma-3-270m", "--model", "/etc/hostname"], "--model is given 2 times: only tide run and tide serve take several models"),
            (["--cache-type-k", "q9"], "unknown --cache-type-k 'q9'; choose f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1"),
            (["--remote", "127.0.0.1:9", "--cache-type-v", "q8_0"], "--cache-type-k and --cache-type-v do not apply to --remote"),
        ])
        func badInputGetsAClearMessageAndAFailingStatus(arguments: [String], message: String) throws {
            let result = try TideProcess.run(["generate"] + arguments + ["hello"])
            #expect(result.status != 0)
            #expect(result.stderr.contains(message), "stderr was: \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }

        @Test func anEmptyPromptIsRefused() throws {
            let result = try TideProcess.run(["generate", "-"], stdin: "  \n")
            #expect(result.status != 0)
            #expect(result.stderr.contains("the prompt is empty"))
        }

        @Test func aPromptLongerThanTheContextNamesTheSizes() throws {
            let long = Array(repeating: "The quick brown fox jumps over the lazy dog.", count: 60).joined(separator: " ")
            let result = try TideProcess.run(["generate", "--ctx-size", "256", long])
            #expect(result.status != 0)
            #expect(result.stderr.contains("but the context holds 256"))
            #expect(result.stderr.contains("drop the oldest turns (--ctx-size, --context-overflow drop-oldest)"),
                    "the command line names the flags: \(result.stderr)")
        }
    }
}

extension CommandLineTests {
    @Suite struct InterruptTests {
        @Test func ctrlCStopsTheReplyAndReportsIt() throws {
            let process = Process()
            process.executableURL = TideProcess.executable
            process.arguments = ["generate", "--temperature", "0", "--max-tokens", "2000", "--stats",
                                 "Write a long story about a lighthouse keeper."]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            var received = Data()
            while received.count < 40, let chunk = try output.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
                received += chunk
            }
            process.interrupt()
            received += output.fileHandleForReading.readDataToEndOfFile()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 130)
            #expect(stderr.contains("stop: cancelled"))
            #expect(received.count >= 40)
            #expect(String(validating: received, as: UTF8.self) != nil)
        }
    }
}
