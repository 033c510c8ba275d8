import Foundation
import Testing
import TideTestSupport

/// The tests that need a GPU (`make test-gpu`; in `make test` too, where they are skipped with a
/// note on a machine without one): the bundled model offloaded by default and by choice, a reply
/// on the GPU, a clean exit of `tide serve` on SIGTERM, and the commands of the GPU figures.
@Suite(.serialized, .enabled(if: GPUMachine.placement != nil,
                             "no GPU: this llama.cpp has no GPU offload or finds no GPU (scripts/setup.sh --gpu-choice says why)"))
struct GPUTests {
    static var gpu: String? { GPUMachine.placement }

    @Test func theModelIsOffloadedByDefaultAndRunsThere() throws {
        #expect(Self.gpu?.hasPrefix("GPU (") == true && Self.gpu?.hasSuffix(", 31 of 31 layers)") == true, "\(Self.gpu ?? "")")
        let result = try TideProcess.run(["generate", "--temperature", "0", "--stats", "--plugin", ScratchPlugins.capitalsFile,
                                          "What is the capital of France?"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "The capital of France is Paris.\n")
        #expect(result.stderr.contains("runs on: \(Self.gpu ?? "?")"), "\(result.stderr)")
        let cpu = try TideProcess.run(["generate", "--gpu-layers", "0", "--max-tokens", "4", "--stats", "Hi"])
        #expect(cpu.stderr.contains("runs on: CPU"), "\(cpu.stderr)")
        let some = try TideProcess.run(["generate", "--gpu-layers", "10", "--max-tokens", "4", "--stats", "Hi"])
        #expect(some.stderr.contains("runs on: CPU and GPU (") && some.stderr.contains(", 10 of 31 layers)"), "\(some.stderr)")
    }

    @Test func aTranscriptRecordedOnTheGPUIsConfirmedThere() throws {
        let folder = try CommandLineTests.scratchFolder("gpu")
        let out = folder.appendingPathComponent("out")
        let recorded = try TideProcess.run(["run", "--quiet", "--out", out.path, "Conversations/capitals.tide"])
        #expect(recorded.status == 0, "\(recorded.stdout)\(recorded.stderr)")
        let replay = try TideProcess.run(["run", out.appendingPathComponent("capitals.tide").path])
        #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
        // Checked by teacher forcing within the tolerance, not skipped for inexact batches (how
        // many replies a GPU's rounding sends past the tolerance is the figure to measure).
        #expect(replay.stdout.contains("confirmed by teacher forcing"), "\(replay.stdout)\(replay.stderr)")
        #expect(!replay.stdout.contains("regenerated whole"), "\(replay.stdout)")
    }

    @Test func serveStopsCleanlyOnSIGTERM() async throws {
        let server = try await TideServer(["--parallel", "4"])
        let (status, _) = try await server.post(#"{"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]}"#)
        #expect(status == 200)
        #expect(try await server.get("health")["runs_on"] as? String == Self.gpu)
        #expect(server.terminate(waitingAtMost: .seconds(60)) != nil)
        let ending = try #require(server.ending)
        let log = server.log(tail: 4000)
        #expect(ending.status == 0 && !ending.signalled, "\(ending): \(log)")
        #expect(log.contains("tide serve: stopped") && !log.contains("CUDA error"), "\(log)")
    }

    /// The commands of the GPU figures run to their report (status 1 is a figure under its budget).
    @Test func theFiguresCommandsRun() throws {
        let bench = try TideProcess.run(["bench", "--only", "decode", "--only", "teacher-forcing", "--only", "score-drift",
                                         "--rounds", "3"], timeout: .seconds(600))
        #expect([0, 1].contains(bench.status), "\(bench.stdout)\(bench.stderr)")
        #expect(bench.stdout.contains("decode: bare loop") && bench.stdout.contains("score drift"), "\(bench.stdout)")
    }
}

/// Whether the tests run where the bundled model goes to a GPU.
enum GPUMachine {
    /// Where the bundled model runs by default, as `tide models info` says; `nil` on the CPU.
    static let placement: String? = {
        guard let info = try? TideProcess.run(["models", "info", "smollm2-135m-instruct"]), info.status == 0,
              let line = info.stdout.split(separator: "\n").first(where: { $0.hasPrefix("runs on:") }) else { return nil }
        let placement = line.dropFirst("runs on:".count).trimmingCharacters(in: .whitespaces)
        return placement == "CPU" ? nil : placement
    }()
}
