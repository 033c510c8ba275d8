import Foundation
import TideLlama

/// Tide sharing the cores: whole `tide generate` processes (a greedy reply of `tokens` tokens,
/// `--draft off`, default threads) run alone, several at once, and beside a busy loop on every
/// core, each one's time set against the median time alone; with the peer, llama-cpp-python on
/// the same file, alone and two at once, when its Python is there.
struct ContentionBenchmark {
    let executable: String
    let model: LlamaModel
    let tokens: Int
    let rounds: Int
    /// A Python with llama-cpp-python (the peer); `nil` leaves it out.
    let peerPython: String?

    static let prompt = "Write a long story about a lighthouse keeper."

    /// One way of sharing the machine: `processes` at once, beside `busyLoops` busy loops.
    struct Scenario: Sendable {
        var name: String
        var processes: Int
        var busyLoops: Int
        /// The most a process may take against its time alone (fair sharing is processes ×
        /// busy loops' share).
        var budget: Double
    }

    /// What one program did in one scenario.
    struct Line: Sendable {
        var program: String
        var scenario: Scenario
        var aloneSeconds: Double
        var eachSeconds: [Double]
        /// The slowest process against the median alone.
        var ratio: Double { (eachSeconds.max() ?? 0) / max(aloneSeconds, 1e-9) }
    }

    struct Result: Sendable {
        var lines: [Line]
    }

    func run() throws -> Result {
        let cores = LlamaContextOptions.coreCount
        let scenarios = [Scenario(name: "two at once", processes: 2, busyLoops: 0, budget: 2.5),
                         Scenario(name: "four at once", processes: 4, busyLoops: 0, budget: 5),
                         Scenario(name: "beside a busy loop on each of \(cores) cores", processes: 1, busyLoops: cores, budget: 2.5)]
        var lines = try measure(program: "tide", command: tideCommand, scenarios: scenarios)
        if let peerPython {
            lines += try measure(program: "llama-cpp-python", command: [peerPython, "-c", peerScript], scenarios: [scenarios[0]])
        }
        return Result(lines: lines)
    }

    private var tideCommand: [String] {
        [executable, "generate", "--model", model.path, "--draft", "off", "--temperature", "0", "--max-tokens", "\(tokens)",
         Self.prompt]
    }

    /// The peer's program: the same file, context size and greedy reply, on every core.
    private var peerScript: String {
        """
        import llama_cpp, os
        model = llama_cpp.Llama(model_path=\(String(reflecting: model.path)), n_ctx=\(min(4096, model.facts.trainedContextLength)), \
        n_threads=os.cpu_count(), flash_attn=True, verbose=False)
        model.create_chat_completion(messages=[{"role": "user", "content": \(String(reflecting: Self.prompt))}], \
        max_tokens=\(tokens), temperature=0)
        """
    }

    private func measure(program: String, command: [String], scenarios: [Scenario]) throws -> [Line] {
        let alone = median(try (0..<rounds).map { _ in try together(command, processes: 1, busyLoops: 0)[0] })
        return try scenarios.map { scenario in
            Line(program: program, scenario: scenario, aloneSeconds: alone,
                 eachSeconds: try together(command, processes: scenario.processes, busyLoops: scenario.busyLoops))
        }
    }

    /// Starts `busyLoops` busy loops, then `processes` copies of `command` at once; returns each
    /// copy's time from its start to its end.
    private func together(_ command: [String], processes: Int, busyLoops: Int) throws -> [Double] {
        let loops = try (0..<busyLoops).map { _ in try start(["/bin/sh", "-c", "while :; do :; done"]) }
        defer {
            // A shell's builtin loop never looks at a pending SIGTERM.
            for loop in loops {
                kill(loop.processIdentifier, SIGKILL)
                loop.waitUntilExit()
            }
        }
        let started = ContinuousClock.now
        let children = try (0..<processes).map { _ in try start(command) }
        var ends = [Double?](repeating: nil, count: processes)
        while ends.contains(nil) {
            Thread.sleep(forTimeInterval: 0.005)
            for (index, child) in children.enumerated() where ends[index] == nil && !child.isRunning {
                ends[index] = (ContinuousClock.now - started).seconds
                guard child.terminationStatus == 0 else {
                    throw BenchmarkError("`\(command.joined(separator: " "))` failed with status \(child.terminationStatus)")
                }
            }
        }
        return ends.map { $0 ?? 0 }
    }

    private func start(_ command: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
